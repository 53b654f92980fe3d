import Foundation
import GRDB
import PTTCore

/// Channels, users and memberships in SQLite (GRDB), in the data directory.
///
/// Every change is written in one transaction before the server applies it in memory and tells a client,
/// with `synchronous = FULL` in WAL mode, so that a crash right after an answer loses nothing.
public final class SQLiteStore: Storage {
    let queue: DatabaseQueue

    /// Opens (creating and migrating if needed) the database at `path`.
    public init(path: String) throws {
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
            try db.execute(sql: "PRAGMA foreign_keys = ON")
        }
        configuration.busyMode = .timeout(5)
        queue = try DatabaseQueue(path: path, configuration: configuration)
        try queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = WAL") }
        try Self.migrator.migrate(queue)
    }

    /// SQLite's own check of the database file: `["ok"]` when it is sound.
    public func integrityCheck() throws -> [String] {
        try queue.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
    }

    /// What went wrong with a write, in words for a client or an operator: a full disk is named as such.
    public func describe(_ error: any Error) -> String { Self.describe(error) }

    /// What went wrong with a write, in words for a client or an operator: a full disk is named as such.
    public static func describe(_ error: any Error) -> String {
        guard let error = error as? DatabaseError else { return "\(error)" }
        switch error.resultCode {
        case .SQLITE_FULL: return "the server's disk is full"
        case .SQLITE_IOERR: return "the server's disk failed (I/O error)"
        case .SQLITE_READONLY: return "the server's database is read-only"
        default: return "storage error \(error.resultCode.rawValue): \(error.message ?? "")"
        }
    }

    /// Everything stored, to rebuild the in-memory directory at start.
    public func load() throws -> ChannelDirectory {
        try queue.read { db in
            let channels = try Row.fetchAll(db, sql: "SELECT * FROM channel").compactMap { row -> Channel? in
                guard let id = ChannelID(string: row["id"]) else { return nil }
                return Channel(
                    id: id, name: row["name"], imageURL: row["imageURL"],
                    createdAt: Date(timeIntervalSince1970: row["createdAt"]), recording: row["recording"],
                    emergency: ChannelEmergency.stored(
                        level: row["emergencyLevel"], member: row["emergencyMember"], user: row["emergencyUser"],
                        since: row["emergencySince"]),
                    emergencyCleared: EmergencyClearing.stored(
                        by: row["emergencyClearedBy"], name: row["emergencyClearedName"]),
                    kind: Channel.Kind(rawValue: row["kind"]) ?? .group)
            }
            let users = try Row.fetchAll(db, sql: "SELECT * FROM user").map { row in
                User(
                    name: row["name"], secretHash: Array(row["secretHash"] as Data), salt: Array(row["salt"] as Data),
                    priority: row["priority"], receiveOnly: row["receiveOnly"],
                    createdAt: Date(timeIntervalSince1970: row["createdAt"]),
                    rights: UserRights(rawValue: row["rights"]))
            }
            let memberships = try Row.fetchAll(db, sql: "SELECT * FROM membership").compactMap { row -> Membership? in
                guard let channel = ChannelID(string: row["channelId"]) else { return nil }
                let token: Data? = row["pushToken"]
                let ssrc: Int64 = row["ssrc"]
                // A suite this version does not know (written by a newer one) falls back to the default: keys are
                // made anew at every start anyway.
                let suite = MediaSuite(rawValue: row["mediaSuite"]) ?? .default
                return Membership(
                    id: MemberID(row["id"]), channel: channel, user: row["userName"], device: row["device"],
                    displayName: row["displayName"], priority: row["priority"], receiveOnly: row["receiveOnly"],
                    pushToken: token.map { Array($0) }, ssrc: UInt32(truncatingIfNeeded: ssrc),
                    mediaKey: Array(row["mediaKey"] as Data), mediaSuite: suite,
                    joinedAt: Date(timeIntervalSince1970: row["joinedAt"]),
                    memberEvents: row["memberEvents"])
            }
            return ChannelDirectory(channels: channels, users: users, memberships: memberships)
        }
    }

    /// Every stored announcement (their memberships exist: removing a membership removes them).
    public func loadAnnouncements() throws -> [StoredAnnouncement] {
        try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM announcement").compactMap { row -> StoredAnnouncement? in
                guard let channel = ChannelID(string: row["channelId"]) else { return nil }
                return StoredAnnouncement(
                    id: row["id"], member: MemberID(row["membershipId"]), channel: channel,
                    collapseID: row["collapseId"],
                    text: row["text"], createdAt: Date(timeIntervalSince1970: row["createdAt"]),
                    expiresAt: Date(timeIntervalSince1970: row["expiresAt"]))
            }
        }
    }

    /// Writes announcement changes in one transaction; throws (and writes nothing) on failure.
    public func write(_ changes: [AnnouncementChange]) throws {
        guard !changes.isEmpty else { return }
        try queue.write { db in
            for change in changes {
                switch change {
                case .put(let a):
                    try db.execute(
                        sql: """
                            INSERT OR REPLACE INTO announcement (id, membershipId, channelId, collapseId, text, createdAt, expiresAt)
                            VALUES (?, ?, ?, ?, ?, ?, ?)
                            """,
                        arguments: [
                            a.id, a.member.rawValue, a.channel.description, a.collapseID, a.text,
                            a.createdAt.timeIntervalSince1970, a.expiresAt.timeIntervalSince1970,
                        ])
                case .remove(let id):
                    try db.execute(sql: "DELETE FROM announcement WHERE id = ?", arguments: [id])
                }
            }
        }
    }

    /// Writes changes in one transaction; throws (and writes nothing) on failure.
    public func write(_ changes: [DirectoryChange]) throws {
        try queue.write { db in
            for change in changes { try Self.write(change, db) }
        }
    }

    private static func write(_ change: DirectoryChange, _ db: Database) throws {
        switch change {
        case .putChannel(let c):
            try db.execute(
                sql: """
                    INSERT INTO channel (id, name, imageURL, createdAt, recording, emergencyLevel, emergencyMember,
                        emergencyUser, emergencySince, emergencyClearedBy, emergencyClearedName, kind)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT(id) DO UPDATE SET name = excluded.name, imageURL = excluded.imageURL,
                        recording = excluded.recording, emergencyLevel = excluded.emergencyLevel,
                        emergencyMember = excluded.emergencyMember, emergencyUser = excluded.emergencyUser,
                        emergencySince = excluded.emergencySince, emergencyClearedBy = excluded.emergencyClearedBy,
                        emergencyClearedName = excluded.emergencyClearedName
                    """,
                arguments: [
                    c.id.description, c.name, c.imageURL, c.createdAt.timeIntervalSince1970, c.recording,
                    c.emergency?.level.rawValue, c.emergency?.member.rawValue, c.emergency?.user,
                    c.emergency?.since.timeIntervalSince1970, c.emergencyCleared?.by.rawValue,
                    c.emergencyCleared?.name, c.kind.rawValue,
                ])
        case .removeChannel(let id):
            try db.execute(sql: "DELETE FROM channel WHERE id = ?", arguments: [id.description])
        case .putUser(let u):
            try db.execute(
                sql: """
                    INSERT INTO user (name, secretHash, salt, priority, receiveOnly, createdAt, rights)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT(name) DO UPDATE SET secretHash = excluded.secretHash, salt = excluded.salt,
                        priority = excluded.priority, receiveOnly = excluded.receiveOnly, rights = excluded.rights
                    """,
                arguments: [
                    u.name, Data(u.secretHash), Data(u.salt), u.priority, u.receiveOnly,
                    u.createdAt.timeIntervalSince1970, u.rights.rawValue,
                ])
        case .removeUser(let name):
            try db.execute(sql: "DELETE FROM user WHERE name = ?", arguments: [name])
        case .putMembership(let m):
            try db.execute(
                sql: """
                    INSERT INTO membership (id, channelId, userName, device, displayName, priority, receiveOnly, pushToken, ssrc, mediaKey,
                        mediaSuite, joinedAt, memberEvents)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT(id) DO UPDATE SET displayName = excluded.displayName, priority = excluded.priority,
                        receiveOnly = excluded.receiveOnly, pushToken = excluded.pushToken, mediaKey = excluded.mediaKey,
                        mediaSuite = excluded.mediaSuite, memberEvents = excluded.memberEvents
                    """,
                arguments: [
                    m.id.rawValue, m.channel.description, m.user, m.device, m.displayName, m.priority, m.receiveOnly,
                    m.pushToken.map { Data($0) }, Int64(m.ssrc), Data(m.mediaKey), m.mediaSuite.rawValue,
                    m.joinedAt.timeIntervalSince1970, m.memberEvents,
                ])
        case .removeMembership(let id):
            try db.execute(sql: "DELETE FROM membership WHERE id = ?", arguments: [id.rawValue])
        }
    }
}
