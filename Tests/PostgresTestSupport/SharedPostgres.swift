import Foundation
import Logging
import PTTStore
import PostgresNIO
import Testing

/// One PostgreSQL for a whole suite (started once around it, stopped after), so that each test costs a
/// `CREATE DATABASE` rather than an `initdb`. Tests reach it through ``server``.
public struct SharedPostgres: SuiteTrait, TestScoping {
    @TaskLocal public static var server: PostgresServer?

    public init() {}

    public var isRecursive: Bool { false }

    public func provideScope(
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
    public static var sharedPostgres: SharedPostgres { SharedPostgres() }
}

extension PostgresServer {
    /// Creates a new, empty database and returns where it is.
    public func createDatabase() async throws -> PostgresLocation {
        let name = "t_" + UUID().uuidString.prefix(12).lowercased().replacingOccurrences(of: "-", with: "")
        let connection = try await connect()
        defer { Task { try? await connection.close() } }
        try await connection.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: Logger(label: "test"))
        return try location(database: name)
    }

    /// The URL of `database` on this server, as an operator would write it.
    public func location(database: String = "postgres") throws -> PostgresLocation {
        try PostgresLocation(url: url(database: database))
    }

    /// `postgres://postgres@/DB?host=DIRECTORY`: the server's superuser, over its Unix socket.
    public func url(database: String = "postgres") -> String {
        "postgres://postgres@/\(database)?host=\(directory)"
    }
}
