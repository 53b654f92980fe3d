import Foundation
import GRDB
import PTTCore

/// Recorded bursts (the `burst` table): written by the recorder as bursts start and end, read by the admin API and
/// replays, removed by retention. GRDB serializes these writes with the plane's.
extension SQLiteStore {
    /// Adds a burst being recorded; returns its id. `file` may name the id with `{id}`, filled in here.
    public func insertBurst(_ burst: RecordedBurst) throws -> RecordedBurst {
        try queue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO burst (channelId, channelName, speaker, speakerName, startedAt, durationMs, packets, bytes,
                        file, state)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    burst.channel.description, burst.channelName, burst.speaker, burst.speakerName,
                    burst.startedAt.timeIntervalSince1970, burst.durationMs, burst.packets, burst.bytes, burst.file,
                    burst.state.rawValue,
                ])
            var stored = burst
            stored.id = db.lastInsertedRowID
            stored.file = burst.file.replacingOccurrences(of: "{id}", with: "\(stored.id)")
            try db.execute(sql: "UPDATE burst SET file = ? WHERE id = ?", arguments: [stored.file, stored.id])
            return stored
        }
    }

    /// Stores how a burst ended (or what a recovery found in its file).
    public func finishBurst(_ id: Int64, durationMs: Int, packets: Int, bytes: Int, state: RecordingState) throws {
        try queue.write { db in
            try db.execute(
                sql: "UPDATE burst SET durationMs = ?, packets = ?, bytes = ?, state = ? WHERE id = ?",
                arguments: [durationMs, packets, bytes, state.rawValue, id])
        }
    }

    /// Removes bursts' rows.
    public func deleteBursts(_ ids: [Int64]) throws {
        guard !ids.isEmpty else { return }
        try queue.write { db in
            for id in ids { try db.execute(sql: "DELETE FROM burst WHERE id = ?", arguments: [id]) }
        }
    }

    /// One burst by id.
    public func burst(_ id: Int64) throws -> RecordedBurst? {
        try queue.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM burst WHERE id = ?", arguments: [id]).flatMap(Self.burst)
        }
    }

    /// A channel's bursts started at or after `since`, newest first, at most `limit`.
    public func bursts(in channel: ChannelID, since: Date?, limit: Int) throws -> [RecordedBurst] {
        try queue.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT * FROM burst WHERE channelId = ? AND startedAt >= ?
                    ORDER BY startedAt DESC, id DESC LIMIT ?
                    """,
                arguments: [channel.description, since?.timeIntervalSince1970 ?? 0, limit]
            ).compactMap(Self.burst)
        }
    }

    /// The bursts of channels named `name` (or whose id it is), except channel `except`'s, newest first.
    public func bursts(named name: String, except: ChannelID?, since: Date?, limit: Int) throws -> [RecordedBurst] {
        try queue.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT * FROM burst WHERE (channelName = ? OR channelId = ?) AND channelId != ? AND startedAt >= ?
                    ORDER BY startedAt DESC, id DESC LIMIT ?
                    """,
                arguments: [name, name, except?.description ?? "", since?.timeIntervalSince1970 ?? 0, limit]
            ).compactMap(Self.burst)
        }
    }

    /// Every burst, oldest first (retention, recovery).
    public func allBursts() throws -> [RecordedBurst] {
        try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM burst ORDER BY startedAt, id").compactMap(Self.burst)
        }
    }

    /// The size of every recording together, and when the oldest started.
    public func burstTotals() throws -> (bytes: Int, oldest: Date?) {
        try queue.read { db in
            let row = try Row.fetchOne(
                db, sql: "SELECT COALESCE(SUM(bytes), 0) AS bytes, MIN(startedAt) AS oldest FROM burst")
            let oldest: Double? = row?["oldest"]
            return (row?["bytes"] ?? 0, oldest.map { Date(timeIntervalSince1970: $0) })
        }
    }

    private static func burst(_ row: Row) -> RecordedBurst? {
        guard let channel = ChannelID(string: row["channelId"]), let state = RecordingState(rawValue: row["state"])
        else { return nil }
        return RecordedBurst(
            id: row["id"], channel: channel, channelName: row["channelName"], speaker: row["speaker"],
            speakerName: row["speakerName"], startedAt: Date(timeIntervalSince1970: row["startedAt"]),
            durationMs: row["durationMs"], packets: row["packets"], bytes: row["bytes"], file: row["file"],
            state: state)
    }
}
