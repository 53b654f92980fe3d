import Foundation
import NIOConcurrencyHelpers
import PTTProtocol
import PTTServer
import PostgresTestSupport
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The database stops answering (its backend process stopped, as a database stalls on a slow disk or a lock) while
/// a member joins: the join waits for it, but floor control does not. The plane hands storage writes over and goes
/// on; before, it waited for the database (up to the store's 10 s timeout) with every floor request behind it.
extension ClusterTests {
    /// The process id of the PostgreSQL backend serving a node's store: its newest connection to `database` (a
    /// node claims its name on its cluster connection first, then opens its store).
    static func storeBackend(on server: PostgresServer, database: String) async throws -> Int32 {
        let connection = try await server.connect(database: database)
        defer { Task { try? await connection.close() } }
        let rows = try await connection.query(
            """
            SELECT pid FROM pg_stat_activity WHERE datname = \(database) AND pid <> pg_backend_pid()
            AND backend_type = 'client backend' ORDER BY backend_start DESC LIMIT 1
            """, logger: connection.logger)
        var found: Int32?
        for try await pid in rows.decode(Int32.self) { found = pid }
        return try #require(found)
    }

    @Test("a floor request is granted while the node's database is stopped in the middle of another member's join")
    func floorWhileStorageStalls() async throws {
        let cluster = try await Self.cluster("n1", users: ["ann", "bob"])
        defer { cluster.kill() }
        let n1 = cluster.nodes[0]
        let ann = try await cluster.connect("ann", on: n1)
        _ = try await ann.join("deck")
        let bob = try await cluster.connect("bob", on: n1)

        let store = try await Self.storeBackend(on: cluster.server, database: cluster.database)
        kill(store, SIGSTOP)
        var resumed = false
        defer { if !resumed { kill(store, SIGCONT) } }
        let answered = NIOLockedValueBox(false)
        let join = Task {
            defer { answered.withLockedValue { $0 = true } }
            return try await bob.request(.join(Join(channel: "galley")))
        }
        // Bob's join is in the plane's hands, waiting for the stopped database.
        _ = try await Self.eventually("bob's join waits for storage") {
            (try await n1.metric("ptt_directory_operations_waiting") ?? 0) >= 1
        }
        let started = ContinuousClock.now
        let granted = try await ann.request(.floorRequest(FloorCommand(channel: "deck")))
        let grantedAfter = ContinuousClock.now - started
        guard case .floorGranted = granted else { throw TestFailure("expected floor-granted, got \(granted.type)") }
        #expect(!answered.withLockedValue { $0 }, "bob's join waits for the stopped database")
        let released = try await ann.request(.floorRelease(FloorCommand(channel: "deck")))
        #expect(released.type == "floor-released")

        kill(store, SIGCONT)
        resumed = true
        guard case .joined(let joined) = try await join.value else { throw TestFailure("bob's join was not joined") }
        #expect(joined.channel.name == "galley")
        let channels: [ChannelSummary] = try await n1.admin.get("/api/channels")
        #expect(channels.map(\.name).sorted() == ["deck", "galley"], "the join is stored once the database answers")
        print("storage stall: floor granted after \(grantedAfter) with the database stopped during a join")
    }
}
