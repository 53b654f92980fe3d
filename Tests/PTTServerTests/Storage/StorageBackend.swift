import Foundation
import Logging
import PTTStore
import PostgresNIO
import TestSupport
import Testing

/// The storages the storage suite runs on: the same tests, each on both.
enum StorageBackend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    var testDescription: String { self == .sqlite ? "SQLite" : "PostgreSQL" }

    /// Runs `body` with a place to open this storage in (as often as it likes: a reopening is a restart), empty at
    /// first. PostgreSQL gets a database of its own on the suite's server (``SharedPostgres``); where PostgreSQL
    /// cannot run, the PostgreSQL case says so and does nothing.
    func withEmptyStorage(_ body: (StoragePlace) async throws -> Void) async throws {
        switch self {
        case .sqlite:
            let directory = TestServer.temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            try await body(.sqlite(path: directory + "/pttd.sqlite"))
        case .postgres:
            guard let server = SharedPostgres.server else {
                print(
                    "PostgreSQL case skipped: \(PostgresServer.unavailable ?? "the suite's PostgreSQL did not start")")
                return
            }
            let location = try await server.createDatabase()
            try await body(.postgres(location))
        }
    }
}

/// Where a storage under test lives; ``open()`` opens it (again).
enum StoragePlace: Sendable {
    case sqlite(path: String)
    case postgres(PostgresLocation)

    func open() throws -> any Storage {
        switch self {
        case .sqlite(let path): return try SQLiteStore(path: path)
        case .postgres(let location):
            return try PostgresStore(location: location, logger: Logger(label: "storage-test"))
        }
    }

    /// Opens the storage, runs `body` with it, and closes it.
    func withStorage<T>(_ body: (any Storage) throws -> T) throws -> T {
        let storage = try open()
        defer { (storage as? PostgresStore)?.close() }
        return try body(storage)
    }
}

/// One PostgreSQL for a whole suite (started once around it, stopped after), so that each test costs a
/// `CREATE DATABASE` rather than an `initdb`. Tests reach it through ``server``.
struct SharedPostgres: SuiteTrait, TestScoping {
    @TaskLocal static var server: PostgresServer?

    var isRecursive: Bool { false }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard PostgresServer.unavailable == nil else { return try await function() }
        let server = try await PostgresServer.start()
        do {
            try await Self.$server.withValue(server) { try await function() }
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}

extension Trait where Self == SharedPostgres {
    /// A PostgreSQL started for the suite.
    static var sharedPostgres: SharedPostgres { SharedPostgres() }
}

extension PostgresServer {
    /// Creates a new, empty database and returns where it is.
    func createDatabase() async throws -> PostgresLocation {
        let name = "t_" + UUID().uuidString.prefix(12).lowercased().replacingOccurrences(of: "-", with: "")
        let connection = try await connect()
        defer { Task { try? await connection.close() } }
        try await connection.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: Logger(label: "test"))
        return try location(database: name)
    }

    /// The URL of `database` on this server, as an operator would write it.
    func location(database: String = "postgres") throws -> PostgresLocation {
        try PostgresLocation(url: url(database: database))
    }

    /// `postgres://postgres@/DB?host=DIRECTORY`: the server's superuser, over its Unix socket.
    func url(database: String = "postgres") -> String {
        "postgres://postgres@/\(database)?host=\(directory)"
    }
}

/// Runs blocking work (a storage call waits for its database) on a dispatch thread, not on one of the few threads
/// that run every test's tasks: blocked there, it would stall unrelated tests' timers and deadlines.
func offTheTestThreads<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(with: Result { try body() }) }
    }
}
