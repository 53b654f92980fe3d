import Foundation
import PostgresNIO

/// A node of a cluster as the database knows it.
public struct NodeRecord: Sendable, Equatable, Codable {
    public var name: String
    /// Its admin API (`http(s)://HOST:PORT`).
    public var adminURL: String
    /// Where members connect (`HOST:PORT`), and where its media socket is.
    public var control: String
    public var media: String
    /// The machine it runs on, its process id and pttd version.
    public var host: String
    public var pid: Int
    public var version: String
    public var startedAt: Date
    /// When it stopped cleanly (nil while it runs, or when it died).
    public var stoppedAt: Date?
    /// Whether it holds its node lock now: true from its start until its database session ends.
    public var alive: Bool
    /// Where it takes the other nodes' links (`HOST:PORT`, empty: none), and the SHA-256 fingerprint of the
    /// certificate it presents there (and as a client on the links it opens).
    public var link: String
    public var fingerprint: String

    public init(
        name: String, adminURL: String, control: String, media: String, host: String, pid: Int, version: String,
        startedAt: Date, stoppedAt: Date? = nil, alive: Bool = true, link: String = "", fingerprint: String = ""
    ) {
        self.name = name
        self.adminURL = adminURL
        self.control = control
        self.media = media
        self.host = host
        self.pid = pid
        self.version = version
        self.startedAt = startedAt
        self.stoppedAt = stoppedAt
        self.alive = alive
        self.link = link
        self.fingerprint = fingerprint
    }
}

/// The cluster's rows the admin API reads through the store (the cluster node's queries are
/// ``PostgresClusterRows``').
extension PostgresStore {
    /// Each owned channel and the node that owns it (``PostgresClusterRows/ownersQuery(_:)``).
    public func channelOwners(_ channels: [String]) throws -> [String: String] {
        try clusterRows.channelOwners(channels)
    }

    /// Every node that ever started (``nodesQuery``).
    public func nodes() throws -> [NodeRecord] {
        try clusterRows.nodes()
    }
}
