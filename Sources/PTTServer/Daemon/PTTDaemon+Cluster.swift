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
            viewChanged: { [weak self] owners, nodes in
                guard let plane = self?.running?.plane else { return }
                plane.eventLoop.execute { plane.cluster?.roundRead(owners: owners, nodes: nodes) }
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

    /// Binds the node link listener, writes this node's row (where it listens, and the fingerprint of the
    /// certificate it proves itself with on links) and starts following the other nodes' directory changes.
    func join(_ node: ClusterNode, running: Running) async throws {
        guard let settings = configuration.cluster else { return }
        let plane = running.plane
        let links = try NodeLinks(
            name: node.name, plane: plane, group: group, metrics: metrics.cluster, logger: logger)
        try await links.bind(host: configuration.controlHost, port: settings.linkPort)
        try await plane.eventLoop.submit {
            plane.cluster?.links = links
            plane.cluster?.roundNow = { [weak node] in node?.roundNow() }
        }.get()
        var running = running
        running.cluster = node
        running.nodeLinks = links
        state = .running(running)
        guard let info = runtimeInfo else { return }
        let host = settings.advertised(controlHost: configuration.controlHost)
        let address = host.contains(":") ? "[\(host)]" : host
        do {
            try await join(node, links: links, info: info, address: address)
        } catch {
            await links.close()
            throw error
        }
        logger.notice(
            "node links", metadata: ["listen": "\(address):\(links.port)", "sha256": "\(links.fingerprint)"])
    }

    private func join(_ node: ClusterNode, links: NodeLinks, info: RuntimeInfo, address: String) async throws {
        try await node.join(
            as: NodeRecord(
                name: node.name, adminURL: info.adminURL, control: "\(address):\(info.controlPort)",
                media: "\(address):\(info.mediaPort ?? 0)", host: ProcessInfo.processInfo.hostName,
                pid: Int(getpid()),
                version: "protocol \(ProtocolVersion.current), schema \(PostgresStore.schemaVersionKnown)",
                startedAt: Date(), link: "\(address):\(links.port)", fingerprint: links.fingerprint))
    }
}
