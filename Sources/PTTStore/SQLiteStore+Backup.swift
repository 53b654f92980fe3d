import Foundation
import GRDB

/// What a database (or a backup of one) holds, as `pttctl backup` and `pttd --restore` report it.
public struct BackupSummary: Sendable, Equatable, Codable, CustomStringConvertible {
    public var users: Int
    public var channels: Int
    public var memberships: Int
    public var recordedBursts: Int
    /// The newest schema migration applied (`v6-sign-in-links`, say).
    public var schema: String

    public var description: String {
        "\(users) users, \(channels) channels, \(memberships) memberships, \(recordedBursts) recorded bursts (schema \(schema))"
    }
}

/// Why a file cannot be restored.
public enum BackupError: Error, CustomStringConvertible, Equatable {
    case notADatabase(String)
    case damaged(String, [String])
    case newerSchema(String, String)
    /// This storage cannot be copied into a SQLite file; the words say what to use instead.
    case unsupported(String)

    public var description: String {
        switch self {
        case .unsupported(let why): why
        case .notADatabase(let path): "\(path) is not a pttd database (SQLite) or cannot be read"
        case .damaged(let path, let problems):
            "\(path) fails SQLite's integrity check: \(problems.prefix(3).joined(separator: "; "))"
        case .newerSchema(let path, let migration):
            "\(path) was written by a newer pttd (its schema has '\(migration)', which this pttd does not know)"
        }
    }
}

/// Online backups (SQLite's backup API) and checks of a backup before it is restored.
extension SQLiteStore {
    /// Copies the whole database, consistently, to a new file at `path` while the server goes on: SQLite's online
    /// backup, in steps of 256 pages so that writers wait at most one step. Returns what the copy holds.
    public func backup(to path: String) throws -> BackupSummary {
        let destination = try DatabaseQueue(path: path)
        try queue.backup(to: destination, pagesPerStep: 256)
        let summary = try destination.read(Self.summary)
        try destination.close()
        return summary
    }

    /// Opens `path` read-only and checks it can be restored: a SQLite database, sound (`integrity_check`), of a
    /// schema this pttd knows (an older one is migrated at the next start). Nothing in the file changes.
    public static func inspect(backup path: String) throws -> BackupSummary {
        var configuration = Configuration()
        configuration.readonly = true
        let database: DatabaseQueue
        do { database = try DatabaseQueue(path: path, configuration: configuration) } catch {
            throw BackupError.notADatabase(path)
        }
        defer { try? database.close() }
        do {
            return try database.read { db in
                let problems = try String.fetchAll(db, sql: "PRAGMA integrity_check")
                guard problems == ["ok"] else { throw BackupError.damaged(path, problems) }
                let known = Set(migrator.migrations)
                for applied in try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations")
                where !known.contains(applied) {
                    throw BackupError.newerSchema(path, applied)
                }
                return try summary(db)
            }
        } catch let error as BackupError {
            throw error
        } catch {
            throw BackupError.notADatabase(path)
        }
    }

    static func summary(_ db: Database) throws -> BackupSummary {
        func count(_ table: String) throws -> Int {
            guard try db.tableExists(table) else { return 0 }
            return try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table)") ?? 0
        }
        let applied = try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations")
        let order = migrator.migrations
        let newest = applied.max { (order.firstIndex(of: $0) ?? -1) < (order.firstIndex(of: $1) ?? -1) } ?? "none"
        return BackupSummary(
            users: try count("user"), channels: try count("channel"), memberships: try count("membership"),
            recordedBursts: try count("burst"), schema: newest)
    }
}
