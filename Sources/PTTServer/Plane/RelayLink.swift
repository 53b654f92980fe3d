import PTTCore
import PTTProtocol
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

    /// Sends the relay changes the parts decided (``PlaneEffect/relay(_:)``) or the cluster's links made.
    func send(_ changes: [RelayChange]) {
        guard !changes.isEmpty else { return }
        relay?.apply(changes)
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
    func reported(_ report: RelayReport) -> [PlaneEffect] {
        plane.eventLoop.preconditionInEventLoop()
        switch report {
        case .heard(let member, let channel, let talking, let dropped):
            guard let membership = plane.directory.memberships[member], membership.channel == channel else { return [] }
            heard[member] = plane.context.clock.now()
            droppedNotHolder[member] = dropped
            guard talking else { return [] }
            // Only a member whose app is connected takes an idle floor by talking: one that is gone could neither
            // be told it holds the floor nor release it (late audio of a member that just left, on a loaded relay).
            let implicit =
                plane.configuration.implicitFloorRequest && plane.sessions.appSession(of: membership) != nil
            return [.talkHeard(member, in: channel, implicit: implicit)]
        case .replayEnded(let member, _, let burst, let outcome):
            return [.replayEnded(member, burst: burst, outcome: outcome)]
        case .scanSwitched(let member, let hearing):
            // The scanning device's app learns which of its channels it hears now.
            plane.context.metrics.scans.switches.increment()
            guard let membership = plane.directory.memberships[member],
                let session = plane.sessions.appSession(of: membership)
            else { return [] }
            let channel = hearing.flatMap { plane.directory.channels[$0] }.map(ChannelInfo.init)
            return [.send(.scanSwitched(ScanSwitched(hearing: channel)), to: session)]
        }
    }

    /// The relay's view of a membership.
    static func relayMember(_ membership: Membership) -> RelayMemberConfig {
        RelayMemberConfig(
            id: membership.id, channel: membership.channel, ssrc: membership.ssrc, listenSSRC: membership.listenSSRC,
            key: membership.mediaKey, suite: membership.mediaSuite, receiveOnly: membership.receiveOnly)
    }
}
