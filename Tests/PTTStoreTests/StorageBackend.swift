import Foundation
import Logging
import PTTStore
import PostgresNIO
import PostgresTestSupport
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
            let directory = TestDirectory.make()
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

/// Runs blocking work (a storage call waits for its database) on a dispatch thread, not on one of the few threads
/// that run every test's tasks: blocked there, it would stall unrelated tests' timers and deadlines.
func offTheTestThreads<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(with: Result { try body() }) }
    }
}
