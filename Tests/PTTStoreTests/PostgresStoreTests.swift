import Foundation
import Logging
import PTTCore
import PTTStore
import PostgresNIO
import PostgresTestSupport
import TestSupport
import Testing

/// What only the PostgreSQL storage has to do: several nodes on one database, nodes starting together, a
/// connection that drops, a database that does not answer, one that cannot be reached.
@Suite(
    "PostgreSQL storage shared by nodes",
    .enabled(if: PostgresServer.unavailable == nil, "PostgreSQL cannot run here: see PostgresServer.unavailable"),
    .sharedPostgres, .serialized)
struct PostgresStoreTests {
    static let logger = Logger(label: "postgres-store-test")

    static func server() throws -> PostgresServer {
        try #require(SharedPostgres.server, "the suite's PostgreSQL did not start")
    }

    @Test("three nodes starting together on an empty database migrate it once, and see each other's writes")
    func nodesShareOneDatabase() async throws {
        let location = try await Self.server().createDatabase()
        let stores = try await withThrowingTaskGroup(of: PostgresStore.self) { group in
            for _ in 0..<3 {
                group.addTask {
                    try await offTheTestThreads { try PostgresStore(location: location, logger: Self.logger) }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        defer { for store in stores { store.close() } }
        for store in stores { #expect(try store.schemaVersion() == PostgresStore.schemaVersionKnown) }
        let connection = try await Self.server().connect(database: location.database)
        defer { Task { try? await connection.close() } }
        var versions: [Int] = []
        for try await version in try await connection.query(
            "SELECT version FROM ptt_schema ORDER BY version", logger: Self.logger
        ).decode(Int.self) {
            versions.append(version)
        }
        #expect(versions == Array(1...PostgresStore.schemaVersionKnown), "each migration ran once")

        let deck = StorageSuiteTests.channel("deck")
        try stores[0].write([.putChannel(deck), .putUser(StorageSuiteTests.user("alice"))])
        let member = StorageSuiteTests.membership("alice", in: deck.id)
        try stores[1].write([.putMembership(member)])
        #expect(try stores[2].load().memberships[member.id] == member)
    }

    @Test("a connection the server drops is opened again: at most one call fails, and nothing is lost")
    func reconnectsAfterADrop() async throws {
        let location = try await Self.server().createDatabase()
        // A call sent in the instant the server ends the session can get no answer at all (postgres-nio leaves it
        // waiting; seen 1 run in 6 here): the store's own timeout is what ends it, and it is that one failed call.
        // A short one keeps the test within its deadline.
        let timeout = Duration.seconds(2).scaled
        let store = try await offTheTestThreads {
            try PostgresStore(location: location, timeout: timeout, logger: Self.logger)
        }
        defer { store.close() }
        try await offTheTestThreads { try store.write([.putUser(StorageSuiteTests.user("alice"))]) }
        let admin = try await Self.server().connect()
        defer { Task { try? await admin.close() } }
        try await admin.query(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = \(location.database)",
            logger: Self.logger)
        var failures: [String] = []
        var stored = false
        let deadline = ContinuousClock.now + .seconds(10).scaled
        while !stored, ContinuousClock.now < deadline {
            do {
                // Off the test's threads: a blocked cooperative thread can hold up postgres-nio's own connect.
                try await offTheTestThreads { try store.write([.putUser(StorageSuiteTests.user("bob"))]) }
                stored = true
            } catch {
                failures.append(store.describe(error))
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        #expect(stored, "the store never reconnected: \(failures)")
        #expect(failures.count <= 1, "\(failures)")
        #expect(try await offTheTestThreads { try store.load() }.users.keys.sorted() == ["alice", "bob"])
    }

    @Test("a call the database does not answer fails within the store's timeout, and the store goes on after")
    func boundedWait() async throws {
        let location = try await Self.server().createDatabase()
        let store = try PostgresStore(location: location, timeout: .milliseconds(500), logger: Self.logger)
        defer { store.close() }
        // Another session holds the table: the store's write waits for it.
        let blocker = try await Self.server().connect(database: location.database)
        defer { Task { try? await blocker.close() } }
        try await blocker.query("BEGIN", logger: Self.logger)
        try await blocker.query("LOCK TABLE app_user IN ACCESS EXCLUSIVE MODE", logger: Self.logger)
        let started = ContinuousClock.now
        do {
            try store.write([.putUser(StorageSuiteTests.user("alice"))])
            Issue.record("the write went through a locked table")
        } catch {
            #expect(store.describe(error).contains("did not answer within 500 ms"), "\(store.describe(error))")
        }
        let waited = ContinuousClock.now - started
        #expect(waited < .seconds(5), "waited \(waited)")
        try await blocker.query("ROLLBACK", logger: Self.logger)
        try store.write([.putUser(StorageSuiteTests.user("bob"))])
        #expect(try store.load().users.keys.sorted() == ["bob"], "the timed-out write was not stored")
    }

    @Test("a database that cannot be reached is named in the error, at once")
    func unreachable() throws {
        let location = try PostgresLocation(url: "postgres://pttd@/pttd?host=/nonexistent-\(UUID().uuidString)")
        let started = ContinuousClock.now
        do {
            _ = try PostgresStore(location: location, logger: Self.logger)
            Issue.record("a store opened on nothing")
        } catch {
            #expect(ContinuousClock.now - started < .seconds(5))
            #expect("\(error)".contains("the database at \(location) cannot be reached"), "\(error)")
        }
    }

    @Test("a database written by a newer pttd is refused with what to do")
    func newerSchema() async throws {
        let location = try await Self.server().createDatabase()
        try PostgresStore(location: location, logger: Self.logger).close()
        let connection = try await Self.server().connect(database: location.database)
        defer { Task { try? await connection.close() } }
        try await connection.query("INSERT INTO ptt_schema (version) VALUES (99)", logger: Self.logger)
        #expect(throws: PostgresStoreError.newerSchema(99, known: PostgresStore.schemaVersionKnown)) {
            try PostgresStore(location: location, logger: Self.logger)
        }
    }

    @Test("pttctl backup on a PostgreSQL node says to use PostgreSQL's tools")
    func backupRefused() async throws {
        let location = try await Self.server().createDatabase()
        let store = try PostgresStore(location: location, logger: Self.logger)
        defer { store.close() }
        #expect(throws: BackupError.self) { try store.backup(to: TestDirectory.make() + "/b.sqlite") }
        do { _ = try store.backup(to: "/tmp/x") } catch { #expect("\(error)".contains("pg_dump")) }
    }
}
