import NIOCore
import PTTCore

extension MediaRelay {
    /// The channel's current floor holder's burst is recorded under `key`.
    func record(_ channel: ChannelID, key: UInt64) {
        guard let generation = channels[channel]?.generation else { return }
        channels[channel]!.recording = (key, generation)
    }

    // MARK: Replay

    /// Plays a recorded burst to one member, in real time, on its stream; refused (reported as cancelled) while
    /// its channel's floor is taken or the member catches up with a burst.
    func replay(_ burst: Int64, speakerSSRC: UInt32, packets: [RecordedPacket], to id: MemberID) {
        guard let member = membersByID[id] else { return }
        let now = clock()
        let live = channels[member.channel]?.holder != nil || member.playback?.kind == .catchUp
        guard !live, let first = packets.first else {
            report?(.replayEnded(id, channel: member.channel, burst: burst, outcome: .cancelled))
            return
        }
        let buffer = BurstBuffer(channel: member.channel, speakerSSRC: speakerSSRC, generation: 0)
        buffer.isOpen = false
        for (index, packet) in packets.enumerated() {
            buffer.append(packet.payload, timestamp: packet.timestamp, marker: index == 0, arrival: now)
        }
        keeping.register(buffer)
        let base = channels[member.channel]?.nextBurstTimestamp(now: now)
        keeping.startPlayback(
            Playback(
                kind: .replay(id: burst), buffer: buffer, next: buffer.firstRetained,
                pacer: PlaybackPacer(origin: first.timestamp, start: now, speed: 1), timestampBase: base ?? 0),
            for: member)
        metrics.catchUp.replays.increment()
    }
}
