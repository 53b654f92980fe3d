import Foundation
import PTTStore

/// `cluster` in the config file (or `--cluster URL --node NAME`): this pttd is one node of several sharing a
/// PostgreSQL database instead of keeping its data in SQLite.
public struct ClusterSettings: Sendable, Equatable, Codable {
    /// The database, as `postgres://USER[:PASSWORD]@HOST[:PORT]/DB` (``PostgresLocation``).
    public var database: String
    /// This node's name, unique in the cluster: letters, digits, `-`, `_` and `.`, at most 63.
    public var node: String

    public init(database: String, node: String) {
        self.database = database
        self.node = node
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
    }
}
