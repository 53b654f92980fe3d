import Foundation
import PTTStore

/// `cluster` in the config file (or `--cluster URL --node NAME`): this pttd is one node of several sharing a
/// PostgreSQL database instead of keeping its data in SQLite.
public struct ClusterSettings: Sendable, Equatable, Codable {
    /// The database, as `postgres://USER[:PASSWORD]@HOST[:PORT]/DB` (``PostgresLocation``).
    public var database: String
    /// This node's name, unique in the cluster: letters, digits, `-`, `_` and `.`, at most 63.
    public var node: String
    /// The TCP port on which this node takes the other nodes' links (TLS; 0: any free port).
    public var linkPort: Int
    /// The address the other nodes reach this node at, for its links and its relay (default: `controlHost`, or
    /// the host name when that is a wildcard).
    public var address: String?

    /// The default ``linkPort``.
    public static let defaultLinkPort = 7703

    public init(database: String, node: String, linkPort: Int = defaultLinkPort, address: String? = nil) {
        self.database = database
        self.node = node
        self.linkPort = linkPort
        self.address = address
    }

    enum CodingKeys: String, CodingKey { case database, node, linkPort, address }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        database = try c.decode(String.self, forKey: .database)
        node = try c.decode(String.self, forKey: .node)
        linkPort = try c.decodeIfPresent(Int.self, forKey: .linkPort) ?? Self.defaultLinkPort
        address = try c.decodeIfPresent(String.self, forKey: .address)
    }

    /// The address other nodes reach this one at: ``address``, else `controlHost` unless it is a wildcard, else
    /// the host name.
    func advertised(controlHost: String) -> String {
        if let address, !address.isEmpty { return address }
        if !["0.0.0.0", "::", ""].contains(controlHost) { return controlHost }
        return ProcessInfo.processInfo.hostName
    }

    /// The name this machine gives itself, as a default node name.
    public static var defaultNodeName: String {
        let host = ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? "node"
        return host.isEmpty ? "node" : host
    }

    /// Checks the URL and the node name; the message says what is wrong.
    func validate() throws(ConfigurationError) {
        do { _ = try PostgresLocation(url: database) } catch {
            throw .invalid("cluster.database: \(error)")
        }
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-_."))
        guard (1...63).contains(node.utf8.count), node.unicodeScalars.allSatisfy({ $0.isASCII && allowed.contains($0) })
        else {
            throw .invalid("cluster.node must be 1 to 63 letters, digits, '-', '_' or '.', got '\(node)'")
        }
        guard (0...65_535).contains(linkPort) else {
            throw .invalid("cluster.linkPort must be a port number (0 to 65535), got \(linkPort)")
        }
    }
}
