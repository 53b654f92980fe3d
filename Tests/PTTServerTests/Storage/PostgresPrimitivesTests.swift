import Foundation
import Logging
import PostgresNIO
import PostgresTestSupport
import TestSupport
import Testing

/// What the cluster's design rests on, checked on a real PostgreSQL through postgres-nio: a session-level
/// advisory lock is held by one connection only, and passes to another when the holder's connection ends (channel
/// ownership and failover); a NOTIFY reaches the connections that LISTEN, within milliseconds (directory caches).
@Suite(
    "PostgreSQL primitives the cluster uses",
    .enabled(if: PostgresServer.unavailable == nil, "PostgreSQL cannot run here: see PostgresServer.unavailable"))
struct PostgresPrimitivesTests {
    static let logger = Logger(label: "postgres-test")

    static func tryLock(_ connection: PostgresConnection, _ key: Int64) async throws -> Bool {
        let rows = try await connection.query("SELECT pg_try_advisory_lock(\(key))", logger: logger)
        for try await locked in rows.decode(Bool.self) { return locked }
        throw TestFailure("pg_try_advisory_lock returned no row")
    }

    @Test("an advisory lock has one holder; when the holder's connection ends another connection takes it")
    func advisoryLockPassesOnDisconnect() async throws {
        try await withPostgres { server in
            // Every connection is closed on every path: one that goes unclosed (a test failing first) stops a debug
            // build, and with it every test of the run.
            let owner = try await server.connect()
            defer { Task { try? await owner.close() } }
            let other = try await server.connect()
            defer { Task { try? await other.close() } }
            #expect(try await Self.tryLock(owner, 7001))
            #expect(try await !Self.tryLock(other, 7001), "a second connection must be refused")
            #expect(try await Self.tryLock(other, 7002), "another key is free")
            // The owner's connection ends (a node dying): the lock is released with its session.
            let closed = ContinuousClock.now
            try await owner.close()
            var taken = false
            let deadline = ContinuousClock.now + Duration.seconds(5).scaled
            while !taken, ContinuousClock.now < deadline {
                taken = try await Self.tryLock(other, 7001)
                if !taken { try await Task.sleep(for: .milliseconds(10)) }
            }
            #expect(taken, "the lock never passed to the other connection")
            print("advisory lock taken over \(ContinuousClock.now - closed) after the owner's connection closed")
        }
    }

    @Test("a NOTIFY reaches a connection that LISTENs, in order, with its payload")
    func notifyReachesListeners() async throws {
        try await withPostgres { server in
            let listener = try await server.connect()
            defer { Task { try? await listener.close() } }
            let sender = try await server.connect()
            defer { Task { try? await sender.close() } }
            let payloads = (1...20).map { "change-\($0)" }
            let received = try await listener.listen(on: "ptt_directory") { notifications in
                try await withThrowingTaskGroup(of: [String].self) { group in
                    group.addTask {
                        var seen: [String] = []
                        for try await notification in notifications {
                            seen.append(notification.payload)
                            if seen.count == payloads.count { break }
                        }
                        return seen
                    }
                    group.addTask {
                        // A bound on a failure, not a measurement: under a sanitizer the pass runs several times slower.
                        try await Task.sleep(for: TestTimeouts.eventWait.scaled)
                        throw TestFailure("notifications did not arrive within \(TestTimeouts.eventWait.scaled)")
                    }
                    for payload in payloads {
                        try await sender.query("SELECT pg_notify('ptt_directory', \(payload))", logger: Self.logger)
                    }
                    let seen = try await group.next() ?? []
                    group.cancelAll()
                    return seen
                }
            }
            #expect(received == payloads)
            try await listener.close()
            try await sender.close()
        }
    }
}
