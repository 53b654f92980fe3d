import Foundation
import PTTProtocol
import PostgresTestSupport
import ServerTestSupport
import TestSupport
import Testing

/// How most cluster tests begin and end: nodes started on a database of their own, users made on the first node,
/// members connected; each node stopped with SIGTERM at the end, expected to exit 0.
extension ClusterTests {
    /// Nodes started one after another on a new database of the suite's PostgreSQL, their users, and the peers
    /// connected through ``connect(_:on:device:role:)`` and ``member(_:on:creates:)``. The test calls ``kill()``
    /// in a `defer`: nothing it started is left running, however it ends.
    final class Cluster {
        let server: PostgresServer
        let database: String
        /// The nodes, in the order they were started.
        fileprivate(set) var nodes: [Node] = []
        /// The secret of each user made when the cluster started.
        fileprivate(set) var secrets: [String: String] = [:]
        private var peers: [Peer] = []

        /// The database's URL, as the nodes were given it.
        var url: String { server.url(database: database) }

        fileprivate init(server: PostgresServer, database: String) {
            self.server = server
            self.database = database
        }

        /// Connects `user` to `node`; ``kill()`` closes the connection.
        func connect(
            _ user: String, on node: Node, device: String = "phone", role: ClientRole = .app
        ) async throws -> Peer {
            let secret = try require_(secrets[user], "a secret for \(user)")
            let peer = try await node.connect(user, secret: secret, device: device, role: role)
            peers.append(peer)
            return peer
        }

        /// `user` in `deck` on `node`, its media open, as ``ClusterTests/member(_:secret:on:channel:creates:)``
        /// makes it; ``kill()`` closes its connection.
        func member(_ user: String, on node: Node, creates: Bool = false) async throws -> Member {
            let secret = try require_(secrets[user], "a secret for \(user)")
            let member = try await ClusterTests.member(user, secret: secret, on: node, creates: creates)
            peers.append(member.talker.peer)
            return member
        }

        /// `user` makes `deck` on `node` as its first member (see ``member(_:on:creates:)``); returns once the first
        /// node lists `node` as deck's owner.
        func founder(_ user: String, on node: Node) async throws -> Member {
            let member = try await member(user, on: node, creates: true)
            _ = try await ClusterTests.eventually("deck owned by \(node.name)") {
                try await ClusterTests.owner(of: "deck", on: nodes[0]) == node.name
            }
            return member
        }

        /// Closes the peers connected through the cluster and SIGKILLs every node (one that has exited already is
        /// gone: the signal does nothing).
        func kill() {
            for peer in peers { Task { await peer.close() } }
            for node in nodes { node.daemon.signal(SIGKILL) }
        }
    }

    /// Creates a database in the suite's PostgreSQL, starts a node for each of `names` on it, in order, and makes
    /// `users` on the first node (returning once every node knows them). `config` is each node's `config.json`.
    static func cluster(_ names: String..., users: [String] = [], config: String? = nil) async throws -> Cluster {
        let server = try #require(SharedPostgres.server)
        let cluster = Cluster(server: server, database: try await server.createDatabase().database)
        do {
            for name in names { cluster.nodes.append(try await start(name, database: cluster.url, config: config)) }
            if !users.isEmpty {
                cluster.secrets = try await Self.users(users, on: cluster.nodes[0], known: cluster.nodes)
            }
        } catch {
            cluster.kill()
            throw error
        }
        return cluster
    }

    /// Stops each node in turn with SIGTERM and expects it to exit 0; when one does not, the failure shows the end
    /// of its standard error.
    static func stop(_ nodes: [Node], sourceLocation: SourceLocation = #_sourceLocation) async throws {
        for node in nodes {
            node.daemon.signal(SIGTERM)
            let status = try await node.daemon.waitForExit()
            #expect(
                status == 0, "\(node.name) exited with \(status): \(node.daemon.standardError.suffix(3000))",
                sourceLocation: sourceLocation)
        }
    }
}
