import NIOCore
import PTTCore
import RTP

/// The broadcasts a relay carries (``RelayBroadcast``), by the sender's channel, on the relay's event loop: at a
/// broadcast's start each target channel's floor is the sender's stand-in's (the sender's parameters with that
/// channel, never sent to), so that its burst is kept, recorded and caught up with like any other; the sender's
/// packets in its own channel then go on to each target still held; at its end the targets are released with the
/// floor's grace, and the stand-ins go when it is over.
final class RelayBroadcasts {
    private unowned let relay: MediaRelay
    private var running: [ChannelID: ActiveRelayBroadcast] = [:]

    init(relay: MediaRelay) {
        self.relay = relay
    }

    /// Whether any broadcast runs: the per-packet path checks this and nothing else outside a broadcast.
    var isEmpty: Bool { running.isEmpty }

    /// A broadcast from `source` starts, or ends (`nil`); for one running already, by the same sender, its targets'
    /// skipped memberships change (a device joined or left one of its channels).
    func set(_ source: ChannelID, _ broadcast: RelayBroadcast?, grace: Duration) {
        if let broadcast {
            if let current = running[source], !current.ending, current.sender == broadcast.sender {
                return current.serve(broadcast)
            }
            return start(source, broadcast)
        }
        guard let ended = running[source] else { return }
        ended.ending = true
        for (stand, _) in ended.targets where relay.channels[stand.channel]?.holder == ended.sender {
            relay.release(stand.channel, by: ended.sender, grace: grace)
        }
        relay.eventLoop.scheduleTask(in: .nanoseconds(grace.nanoseconds)) { [weak self] in
            guard let self, self.running[source] === ended else { return }
            self.running[source] = nil
            for (stand, _) in ended.targets where self.relay.channels[stand.channel]?.member(ended.sender) === stand {
                self.relay.channels[stand.channel]!.remove(ended.sender)
                self.relay.settleBurst(stand.channel)
                self.relay.scans.floorChanged(stand.channel)
                if self.relay.channels[stand.channel]!.isEmpty { self.relay.channels[stand.channel] = nil }
            }
        }
    }

    private func start(_ source: ChannelID, _ broadcast: RelayBroadcast) {
        guard let sender = relay.membersByID[broadcast.sender] else { return }
        var targets: [(stand: RelayMember, skip: Set<MemberID>)] = []
        for target in broadcast.targets where target.channel != source {
            var config = sender.config
            config.channel = target.channel
            let stand = RelayMember(config: config, crypto: sender.crypto)
            relay.channels[target.channel, default: RelayChannelState(channel: target.channel)].put(stand)
            relay.channels[target.channel]!.setHolder(sender.config.id)
            relay.settleBurst(target.channel)
            relay.scans.floorChanged(target.channel)
            targets.append((stand, target.skip))
        }
        running[source] = ActiveRelayBroadcast(
            sender: sender.config.id, senderSSRC: sender.config.ssrc, targets: targets)
    }

    /// A packet the sender of a broadcast forwarded in its own channel goes on to each target whose floor the
    /// broadcast still holds (or whose release grace it is in), skipping the devices served before.
    func forward(
        _ packet: UnsafeMutableRawBufferPointer, header: RTPHeader, from speaker: RelayMember, now: NIODeadline,
        via handler: MediaRelayHandler
    ) {
        guard let broadcast = running[speaker.channel], broadcast.sender == speaker.config.id else { return }
        for (stand, skip) in broadcast.targets {
            guard let state = relay.channels[stand.channel],
                state.holder == broadcast.sender || state.lateAudio?.ssrc == broadcast.senderSSRC
            else { continue }
            relay.forward(packet, header: header, from: stand, now: now, via: handler, skipping: skip)
        }
    }
}
