import PTTProtocol
import PTTStore

extension AdminOperations {
    /// `GET /api/nodes`: every node of the cluster, and whether it runs.
    func nodes() throws(AdminError) -> NodesResponse {
        guard let store = plane.store as? PostgresStore, let node = store.node else {
            throw AdminError(.notFound, "this pttd is not a node of a cluster (start it with --cluster postgres://…)")
        }
        do {
            return NodesResponse(
                node: node,
                nodes: try store.nodes().map {
                    NodeInfo(
                        name: $0.name, alive: $0.alive, adminURL: $0.adminURL, control: $0.control, media: $0.media,
                        host: $0.host, pid: $0.pid, version: $0.version, startedAt: $0.startedAt.iso8601,
                        stoppedAt: $0.stoppedAt?.iso8601)
                })
        } catch {
            throw AdminError(.unavailable, "cannot read the cluster's nodes: \(store.describe(error))")
        }
    }
}

extension AdminOperations {
    /// In a cluster, each owned channel's owner node (by channel id); empty on a single server, or when the
    /// database cannot say (the list is shown without owners rather than not at all).
    func channelOwners() -> [String: String] {
        guard let store = plane.store as? PostgresStore, store.node != nil else { return [:] }
        do { return try store.channelOwners(directory.channels.keys.map(\.description)) } catch {
            plane.logger.warning("cannot read channel owners", metadata: ["error": "\(store.describe(error))"])
            return [:]
        }
    }
}
