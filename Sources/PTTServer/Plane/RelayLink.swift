import PTTCore
import PTTRelay

/// The plane's side of the audio relay: what the relay is told (members and floor holders, as changes), and
/// what it reports (a member was heard, or talked without the floor).
final class RelayLink {
    private unowned let plane: ControlPlane
    /// The audio relay, once started.
    private var relay: MediaRelay?
    /// The relay's actual UDP port, announced in `joined`.
    private(set) var mediaPort: Int
    /// When the relay last heard an authenticated packet from each member (media or keep-alive).
    private var heard: [MemberID: PTTInstant] = [:]
    /// Packets the relay dropped from each member because it did not hold the floor (as last reported).
    private var droppedNotHolder: [MemberID: Int] = [:]

    init(plane: ControlPlane) {
        self.plane = plane
        mediaPort = plane.configuration.mediaPort
    }

    /// The relay is bound: it learns every membership and floor holder.
    func attach(_ relay: MediaRelay) {
        self.relay = relay
        mediaPort = relay.port
        var updates = plane.directory.memberships.values.map { RelayChange.join(Self.relayMember($0)) }
        updates.append(contentsOf: plane.floors.holders.map { .floor($0.0, holder: $0.1) })
        relay.apply(updates)
    }

    /// The server stops: the plane lets go of the relay (the relay and the plane refer to each other).
    func detach() { relay = nil }

    /// Sends the relay changes made elsewhere (a cluster's links).
    func send(_ changes: [RelayChange]) {
        guard !changes.isEmpty else { return }
        relay?.apply(changes)
    }

    /// Tells the relay who may send on a channel.
    func syncFloor(_ channel: ChannelID, holder: MemberID?) {
        relay?.apply([.floor(channel, holder: holder)])
    }

    /// Tells the relay the holder released the floor: idle, with its late packets still forwarded for `grace`, the
    /// floor's own (a floor keeps the settings it was granted under until it is idle; by default the configured ones).
    func released(_ channel: ChannelID, by member: MemberID, grace: Duration? = nil) {
        let grace = grace ?? plane.configuration.floor.releaseGrace
        relay?.apply([.released(channel, by: member, grace: grace)])
    }

    /// Tells the relay which members were woken for the burst the channel's holder starts (they may catch up with it).
    func woken(_ channel: ChannelID, _ members: [MemberID]) {
        guard !members.isEmpty else { return }
        relay?.apply([.woken(channel, members)])
    }

    /// Tells the relay that the burst the channel's holder starts is recorded under `key`.
    func record(_ channel: ChannelID, key: UInt64) {
        relay?.apply([.record(channel, key: key)])
    }

    /// Plays a recorded burst to one member.
    func replay(_ burst: Int64, speakerSSRC: UInt32, packets: [RecordedPacket], to member: MemberID) {
        relay?.apply([.replay(member, burst: burst, speakerSSRC: speakerSSRC, packets: packets)])
    }

    /// Tells the relay what a stored set of directory changes changed: joins and leaves, never a whole channel again.
    func apply(_ diff: DirectoryDiff) {
        guard let relay, !diff.steps.isEmpty else { return }
        relay.apply(
            diff.steps.map {
                switch $0 {
                case .join(let membership): .join(Self.relayMember(membership))
                case .leave(let id): .leave(id)
                case .removeChannel(let id): .removeChannel(id)
                }
            })
    }

    /// A membership ended: what the relay reported of it goes.
    func forget(_ member: MemberID) {
        heard[member] = nil
        droppedNotHolder[member] = nil
    }

    /// Whether the relay heard the member within the silence timeout.
    func audioReachable(_ member: MemberID) -> Bool {
        guard let at = heard[member] else { return false }
        return plane.context.clock.now().since(at) < plane.configuration.mediaSilenceTimeout
    }

    /// Whether a member is heard by this node's relay, or by another node's as that node last said: a member
    /// connected anywhere in the cluster is reachable, and is not woken.
    func heardAnywhere(_ member: MemberID) -> Bool {
        audioReachable(member) || plane.cluster?.heardElsewhere(member) == true
    }

    /// Packets the relay dropped from a member because it did not hold the floor.
    func droppedPackets(of member: MemberID) -> Int { droppedNotHolder[member] ?? 0 }

    /// A report from the relay: media restarts T1 for the holder; the first media on an idle floor is an implicit
    /// floor request (when configured, and from a member whose app is connected).
    func reported(_ report: RelayReport) {
        plane.eventLoop.preconditionInEventLoop()
        switch report {
        case .heard(let member, let channel, let talking, let dropped):
            guard let membership = plane.directory.memberships[member], membership.channel == channel else { return }
            heard[member] = plane.context.clock.now()
            droppedNotHolder[member] = dropped
            guard talking else { return }
            // Only a member whose app is connected takes an idle floor by talking: one that is gone could neither
            // be told it holds the floor nor release it (late audio of a member that just left, on a loaded relay).
            let implicit =
                plane.configuration.implicitFloorRequest && plane.sessions.appSession(of: membership) != nil
            // Another node's floor: the report goes there (or, with no owner known, a round is asked for).
            if plane.cluster?.talkHeard(member, in: channel, implicit: implicit) == true { return }
            plane.floors.talkHeard(member, in: channel, implicit: implicit)
        case .replayEnded(let member, _, let burst, let outcome):
            plane.recordings.replayEnded(member, burst: burst, outcome: outcome)
        }
    }

    /// The relay's view of a membership.
    static func relayMember(_ membership: Membership) -> RelayMemberConfig {
        RelayMemberConfig(
            id: membership.id, channel: membership.channel, ssrc: membership.ssrc, listenSSRC: membership.listenSSRC,
            key: membership.mediaKey, suite: membership.mediaSuite, receiveOnly: membership.receiveOnly)
    }
}
