import Foundation
import PTTProtocol
import PTTStore

extension PTTDaemon {
    /// The storage this pttd keeps its data in: the data directory's SQLite file, or, as a node of a cluster, the
    /// cluster's PostgreSQL database, once this node's name is claimed (two pttd never run as one node).
    func openStorage() async throws -> (any Storage, ClusterNode?) {
        guard let settings = configuration.cluster else {
            return (try SQLiteStore(path: dataDirectory.database), nil)
        }
        let node = try ClusterNode(
            settings: settings, logger: logger, metrics: metrics.cluster,
            localChannels: { [weak self] in
                guard let plane = self?.running?.plane else { return [] }
                return (try? await plane.eventLoop.submit { plane.localChannelIDs() }.get()) ?? []
            },
            directoryChanged: { [weak self] _ in self?.running?.plane.storedDirectoryChanged() })
        try await node.claim()
        do {
            let store = try PostgresStore(
                location: node.location, node: settings.node, logger: logger)
            logger.notice(
                "storage: the cluster's PostgreSQL",
                metadata: ["node": "\(settings.node)", "database": "\(node.location)"])
            return (store, node)
        } catch {
            await node.stop()
            throw error
        }
    }

    /// Writes this node's row (where it listens) and starts following the other nodes' directory changes.
    func join(_ node: ClusterNode, running: Running) async throws {
        var running = running
        running.cluster = node
        state = .running(running)
        guard let info = runtimeInfo else { return }
        let host = configuration.controlHost
        try await node.join(
            as: NodeRecord(
                name: node.name, adminURL: info.adminURL, control: "\(host):\(info.controlPort)",
                media: "\(host):\(info.mediaPort ?? 0)", host: ProcessInfo.processInfo.hostName,
                pid: Int(getpid()),
                version: "protocol \(ProtocolVersion.current), schema \(PostgresStore.schemaVersionKnown)",
                startedAt: Date()))
    }
}
