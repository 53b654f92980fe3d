import NIOCore
import PTTCore
import PTTProtocol
import PTTRelay
import PTTStore

/// A cluster node's part of the control plane (on the plane's event loop): the node links, who owns each channel,
/// and the floor requests and reports that go to another node's floor.
///
/// Who owns what, the forwarded requests' tickets and the isolation from the database are decided by the pure
/// ``ChannelOwnership`` (PTTCore); this part feeds it what the node learns (rounds of ownership, floor requests,
/// the owners' floor events, link changes, time) and carries out the actions it returns (``execute(_:)``). The rest
/// is the links: which channels each node listens in, the members each node's relay hears, and the audio links
/// each channel's relay state is given.
///
/// A single server has none (`ControlPlane.cluster` is nil): its plane never opens a cluster file.
final class ClusterPlane {
    unowned let plane: ControlPlane
    /// This node's name.
    var node: String { ownership.node }
    /// Who owns what, the tickets of forwarded requests, the requests waiting for an owner, the isolation.
    var ownership: ChannelOwnership<Floors.Requester>
    /// The node links, once bound.
    var links: NodeLinks?
    /// Asks the cluster node for a round of ownership now (set by the daemon).
    var roundNow: (@Sendable () -> Void)?
    /// The floors other nodes own, as their last floor event showed them.
    var remoteFloors: [ChannelID: NodeFloorEvent] = [:]
    /// The channels this node last told the others it listens in, the members it said it hears, and those whose
    /// Local Push connection is here.
    var listening: Set<ChannelID> = []
    var reachable: Set<MemberID> = []
    var pushProviders: Set<MemberID> = []
    /// The links each channel's relay state was given.
    var relayLinks: [ChannelID: RelayChannelLinks] = [:]
    /// The other nodes as the last round read them: where members are sent when this node is cut off.
    var otherNodes: [NodeRecord] = []
    /// The timer armed for ``ChannelOwnership/nextDeadline``, and the deadline.
    private var timer: (deadline: PTTInstant, task: Scheduled<Void>)?

    init(plane: ControlPlane, node: String) {
        self.plane = plane
        ownership = ChannelOwnership(node: node)
    }

    var now: PTTInstant { plane.context.clock.now() }

    /// The owner of a channel when it is another node; nil when it is this one or unknown.
    func remoteOwner(of channel: ChannelID) -> String? {
        if case .owner(let owner) = ownership.route(of: channel) { return owner }
        return nil
    }

    /// Carries out what ``ownership`` decided, in order, then keeps the timer at its next deadline.
    func execute(_ actions: [ChannelOwnership<Floors.Requester>.Action]) {
        for action in actions {
            switch action {
            case .decideLocally(let channel, let requester):
                guard requester.session.map(plane.sessions.isOpen) ?? false else { continue }
                plane.run(plane.floors.handle(.request(requester), in: channel))
            case .decideForwarded(let channel, let request):
                let requester = Floors.Requester(
                    member: request.member, session: nil, re: nil,
                    remote: NodeRequester(node: request.from, ticket: request.ticket.rawValue, member: request.member),
                    emergency: request.emergency)
                plane.run(plane.floors.handle(.request(requester), in: channel))
            case .forward(let ticket, let channel, let member, let owner):
                forward(ticket, channel: channel, member: member, to: owner)
            case .refuse(let request, let channel, let owner):
                // The node's view is behind (or this one's): it answers its member at once and asks for a round.
                _ = owns(channel, asked: request.from)  // logs it
                plane.context.metrics.cluster.forwardsRefusedHere.increment()
                let refused = NodeFloorRefused(channel: channel, ticket: request.ticket.rawValue, owner: owner)
                _ = links?.send(.floorRefused(refused), to: request.from)
            case .answer(let requester, let outcome):
                guard let message = outcome.message else { continue }  // a floor event answers it (followFloorEvent)
                requester.session?.send(.error(ErrorFrame(re: requester.re, code: .unavailable, message: message)))
            case .ownerChanged(let channel, let old, let new):
                ownerChanged(channel, from: old, to: new)
            case .adoptFloor, .releaseFloor:
                continue  // ownerChanged did it: a floor run here goes when another node owns the channel
            case .askRound:
                roundNow?()
            case .sendMembersElsewhere:
                sendMembersElsewhere()
            }
        }
        armTimer()
    }

    /// Sends a forwarded request with its ticket; a link that cannot take it answers it at once.
    private func forward(_ ticket: FloorTicket, channel: ChannelID, member: MemberID, to owner: String) {
        let request = NodeFloorRequest(
            channel: channel, member: member, ticket: ticket.rawValue,
            emergency: ownership.requester(of: ticket)?.emergency.map(NodeEmergency.init))
        guard links?.send(.floorRequest(request), to: owner) == true else {
            return execute(ownership.forwardUndelivered(ticket, now: now))
        }
    }

    /// A channel changed owner: a floor run here goes idle when another node takes it, as does one seen from a
    /// former owner; members here are told (a new owner starts idle).
    private func ownerChanged(_ channel: ChannelID, from old: String?, to new: String?) {
        func floorWentIdleHere(_ channel: ChannelID) {
            plane.relayLink.send([.floor(channel, holder: nil)])
            guard let found = plane.directory.channels[channel] else { return }
            plane.broadcast(.floorIdle(FloorChannelEvent(channel: ChannelInfo(found))), to: channel)
        }
        if new != node, let floor = plane.floors[channel] {
            plane.run(plane.floors.remove(channel))
            if floor.holder != nil { floorWentIdleHere(channel) }
        }
        if old != node, let seen = remoteFloors.removeValue(forKey: channel), seen.holder != nil {
            floorWentIdleHere(channel)
        }
        guard let new else { return }
        plane.logger.notice(
            "channel owner changed", metadata: ["channel": "\(channel)", "from": "\(old ?? "-")", "to": "\(new)"])
    }

    /// Keeps one timer at the ownership's next deadline.
    private func armTimer() {
        guard let deadline = ownership.nextDeadline else {
            timer?.task.cancel()
            timer = nil
            return
        }
        if let timer, timer.deadline <= deadline { return }
        timer?.task.cancel()
        let plane = plane
        let task = plane.eventLoop.scheduleTask(deadline: .uptimeNanoseconds(deadline.nanoseconds)) {
            guard let cluster = plane.cluster else { return }
            cluster.timer = nil
            cluster.execute(cluster.ownership.timersExpired(now: cluster.now))
        }
        timer = (deadline, task)
    }
}
