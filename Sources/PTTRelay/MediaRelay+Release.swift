import NIOCore
import PTTCore

extension MediaRelay {
    /// The holder released the floor: idle, with its late packets forwarded for `grace` (the floor's
    /// ``FloorConfiguration/releaseGrace``); the burst (kept, recorded) ends with the grace.
    func release(_ channel: ChannelID, by member: MemberID, grace releaseGrace: Duration) {
        let grace = TimeAmount.nanoseconds(releaseGrace.nanoseconds)
        let until = clock() + grace
        channels[channel, default: RelayChannelState(channel: channel)].release(by: member, until: until)
        settleBurst(channel)
        scans.floorChanged(channel)
        releaseHeldPackets(channel)
        guard channels[channel]?.lateAudio != nil else { return }
        // One task per release, none per packet.
        eventLoop.scheduleTask(in: grace) { [weak self] in
            guard let self, self.channels[channel] != nil else { return }
            self.channels[channel]!.endLateAudio(until: until)
            self.settleBurst(channel)
            self.scans.floorChanged(channel)
        }
    }
}
