import Foundation

/// `GET /api/nodes`: the nodes of the cluster this pttd is part of, as the cluster's database knows them.
public struct NodesResponse: Codable, Sendable, Equatable {
    /// The node that answered.
    public var node: String
    /// Every node that ever started, by name.
    public var nodes: [NodeInfo]

    public init(node: String, nodes: [NodeInfo]) {
        self.node = node
        self.nodes = nodes
    }
}

/// One node of a cluster.
public struct NodeInfo: Codable, Sendable, Equatable {
    public var name: String
    /// Whether it runs now (it holds its node lock in the database).
    public var alive: Bool
    /// Its admin API, control listener (`HOST:PORT`) and media socket.
    public var adminURL: String
    public var control: String
    public var media: String
    /// The machine, process id and versions (protocol, schema) it runs with.
    public var host: String
    public var pid: Int
    public var version: String
    public var startedAt: String
    /// When it started and when it stopped cleanly (ISO 8601); stopped is nil while it runs, or if it died.
    public var stoppedAt: String?

    public init(
        name: String, alive: Bool, adminURL: String, control: String, media: String, host: String, pid: Int,
        version: String, startedAt: String, stoppedAt: String?
    ) {
        self.name = name
        self.alive = alive
        self.adminURL = adminURL
        self.control = control
        self.media = media
        self.host = host
        self.pid = pid
        self.version = version
        self.startedAt = startedAt
        self.stoppedAt = stoppedAt
    }
}
