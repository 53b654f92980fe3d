import NIOCore
import PTTCore
import PTTProtocol
import PTTStore

/// Rounds of ownership, and a node cut off from its database: it owns nothing from the first moment (it can no
/// longer prove it does), and once that has lasted the isolation grace it sends every member to another node,
/// naming the nodes it last saw, and refuses new ones the same way until its connection is back.
extension ClusterPlane {
    /// A round of ownership read the owners of this node's channels and the nodes (none at all: the round could not
    /// reach the database).
    func roundRead(owners: [String: String], nodes: [NodeRecord]) {
        plane.eventLoop.preconditionInEventLoop()
        let wasIsolated = ownership.isolatedSince != nil
        if !nodes.isEmpty { otherNodes = nodes.filter { $0.name != node } }
        links?.nodesChanged(nodes)
        var fresh: [ChannelID: String] = [:]
        for (id, owner) in owners { if let channel = ChannelID(string: id) { fresh[channel] = owner } }
        // A round always reads this node's own row: no rows at all is the lost connection's view.
        let live = nodes.isEmpty ? [] : Set(nodes.filter(\.alive).map(\.name)).union([node])
        let actions = ownership.roundRead(owners: fresh, liveNodes: live, now: now)
        logIsolation(was: wasIsolated)
        // Owners first, then the links they imply, then the requests that waited for them.
        execute(actions.filter { !$0.isRequest })
        announceListening()
        updateRelayLinks()
        execute(actions.filter(\.isRequest))
    }

    private func logIsolation(was wasIsolated: Bool) {
        switch (wasIsolated, ownership.isolatedSince != nil) {
        case (false, true):
            let grace = ownership.configuration.isolationGrace.components.seconds
            plane.logger.warning(
                "cut off from the cluster's database: members go to other nodes unless it is back within \(grace) s",
                metadata: ["node": "\(node)"])
        case (true, false):
            plane.logger.notice("the cluster's database is back: serving members again", metadata: ["node": "\(node)"])
        default:
            break
        }
    }

    /// Why this node sends members elsewhere now, as members are told; nil while it serves them.
    var sendsMembersElsewhere: String? {
        guard ownership.sendsMembersElsewhere(now: now) != nil else { return nil }
        let others = otherNodes.filter(\.alive).map { "\($0.name) at \($0.control)" }
        return "node '\(node)' lost the cluster's database: connect to another node"
            + (others.isEmpty ? "" : " (\(others.joined(separator: ", ")))")
    }

    /// Closes every session with `unavailable`, naming the other nodes.
    func sendMembersElsewhere() {
        guard let message = sendsMembersElsewhere else { return }
        let open = plane.sessions.records.values.map(\.session)
        plane.logger.warning(
            "sent every member to another node", metadata: ["sessions": "\(open.count)", "message": "\(message)"])
        for session in open { session.close(with: ErrorFrame(code: .unavailable, message: message)) }
    }
}

extension ChannelOwnership.Action {
    /// Whether it runs or answers a floor request (rather than changing who owns what).
    var isRequest: Bool {
        switch self {
        case .decideLocally, .decideForwarded, .forward, .refuse, .answer: true
        case .ownerChanged, .adoptFloor, .releaseFloor, .askRound, .sendMembersElsewhere: false
        }
    }
}
