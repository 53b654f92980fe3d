import NIOCore
import PTTProtocol
import PTTStore

extension AdminOperations {
    /// `GET /api/nodes`: every node of the cluster, and whether it runs (read on the storage's thread).
    func nodes() -> EventLoopFuture<NodesResponse> {
        guard let store = plane.store as? PostgresStore, let node = store.node else {
            return plane.eventLoop.makeFailedFuture(
                AdminError(.notFound, "this pttd is not a node of a cluster (start it with --cluster postgres://…)"))
        }
        let storage = plane.storage
        return storage.run { _ in try store.nodes() }.map { nodes in
            NodesResponse(
                node: node,
                nodes: nodes.map {
                    NodeInfo(
                        name: $0.name, alive: $0.alive, adminURL: $0.adminURL, control: $0.control, media: $0.media,
                        host: $0.host, pid: $0.pid, version: $0.version, startedAt: $0.startedAt.iso8601,
                        stoppedAt: $0.stoppedAt?.iso8601)
                })
        }.flatMapErrorThrowing { error in
            throw AdminError(.unavailable, "cannot read the cluster's nodes: \(storage.describe(error))")
        }
    }
}

extension AdminOperations {
    /// In a cluster, each owned channel's owner node (by channel id), read on the storage's thread; empty on a
    /// single server, or when the database cannot say (the list is shown without owners rather than not at all).
    func channelOwners() -> EventLoopFuture<[String: String]> {
        guard let store = plane.store as? PostgresStore, store.node != nil else {
            return plane.eventLoop.makeSucceededFuture([:])
        }
        let channels = directory.channels.keys.map(\.description)
        let storage = plane.storage
        return storage.run { _ in try store.channelOwners(channels) }.recover { [logger = plane.logger] error in
            logger.warning("cannot read channel owners", metadata: ["error": "\(storage.describe(error))"])
            return [:]
        }
    }
}
