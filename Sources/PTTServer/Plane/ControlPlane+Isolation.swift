import NIOCore
import PTTProtocol
import PTTStore

/// A cluster node cut off from its database: it owns nothing from the first moment (it can no longer prove it
/// does), and once that has lasted ``ClusterRouting/isolationGrace`` it sends every member to another node,
/// naming the nodes it last saw, and refuses new ones the same way until its connection is back.
extension ControlPlane {
    /// Why this node sends members elsewhere now, as members are told; nil while it serves them.
    var sendsMembersElsewhere: String? {
        guard let cluster, let since = cluster.isolatedSince, NIODeadline.now() - since >= ClusterRouting.isolationGrace
        else { return nil }
        let others = cluster.otherNodes.filter(\.alive).map { "\($0.name) at \($0.control)" }
        return "node '\(cluster.node)' lost the cluster's database: connect to another node"
            + (others.isEmpty ? "" : " (\(others.joined(separator: ", ")))")
    }

    func databaseLost() {
        guard let cluster, cluster.isolatedSince == nil else { return }
        cluster.isolatedSince = .now()
        logger.warning(
            "cut off from the cluster's database: members go to other nodes unless it is back within \(ClusterRouting.isolationGrace.nanoseconds / 1_000_000_000) s",
            metadata: ["node": "\(cluster.node)"])
        eventLoop.scheduleTask(in: ClusterRouting.isolationGrace) { self.sendMembersElsewhere() }
    }

    func databaseBack(_ nodes: [NodeRecord]) {
        guard let cluster else { return }
        cluster.otherNodes = nodes.filter { $0.name != cluster.node }
        guard cluster.isolatedSince != nil else { return }
        cluster.isolatedSince = nil
        logger.notice("the cluster's database is back: serving members again", metadata: ["node": "\(cluster.node)"])
    }

    /// Closes every session with `unavailable`, naming the other nodes, if the node is still cut off.
    private func sendMembersElsewhere() {
        guard let message = sendsMembersElsewhere else { return }
        let open = sessions.records.values.map(\.session)
        logger.warning(
            "sent every member to another node", metadata: ["sessions": "\(open.count)", "message": "\(message)"])
        for session in open { session.close(with: ErrorFrame(code: .unavailable, message: message)) }
    }
}
