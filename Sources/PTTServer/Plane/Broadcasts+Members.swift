import PTTCore
import PTTProtocol
import PTTRelay

/// Members who join or leave a broadcast's channels while it runs (Docs/PROTOCOL.md 5.43): a joining member is told
/// of the broadcast as its channel's members were at its start, and each device still hears it once.
extension Broadcasts {
    /// `broadcast-started` for a member that joins, or reconnects to, `channel` while a broadcast holds it (sent
    /// right after its `joined` or `welcome`); nil when none does, and for the broadcast's sender.
    func startedEvent(for member: MemberID, in channel: ChannelID) -> ControlMessage? {
        guard let info = info(of: channel), info.speaker.id != member.rawValue,
            let found = plane.directory.channels[channel]
        else { return nil }
        return .broadcastStarted(BroadcastStarted(channel: ChannelInfo(found), broadcast: info))
    }

    /// A membership of `channel` began or ended: when `channel` is in a running broadcast, which memberships get no
    /// copy is decided again (a device that joins a second of its channels is not sent a second copy; one that
    /// leaves the channel it heard the broadcast on hears it on the next), and the relay is told if that changed.
    func membersChanged(in channel: ChannelID) -> [PlaneEffect] {
        guard let source = lock(of: channel) ?? (isSending(from: channel) ? channel : nil) else { return [] }
        return servingChanged(of: source)
    }

    /// Decides again which memberships of the broadcast sent from `source` get no copy; tells the relay if that
    /// changed.
    func servingChanged(of source: ChannelID) -> [PlaneEffect] {
        guard var broadcast = running[source] else { return [] }
        let skips = BroadcastPlan.skips(in: broadcast.channels, directory: plane.directory)
        guard skips != broadcast.skips else { return [] }
        broadcast.skips = skips
        running[source] = broadcast
        return [.relay([.broadcast(source, Self.relayBroadcast(broadcast), grace: grace)])]
    }

    /// The broadcast as the relay carries it: its target channels still in it, each with the memberships it skips.
    static func relayBroadcast(_ broadcast: Running) -> RelayBroadcast {
        RelayBroadcast(
            sender: broadcast.plan.sender,
            targets: broadcast.channels.filter { $0 != broadcast.plan.source }.map {
                RelayBroadcastTarget(channel: $0, skip: broadcast.skips[$0] ?? [])
            })
    }
}
