import Foundation
import PTTCore
import PostgresNIO

/// Recorded bursts' metadata in PostgreSQL (the files stay on the disk of the node that recorded them).
struct PostgresBurstRows {
    /// The connection the rows are read and written on.
    let serial: PostgresSerialConnection

    /// Adds a burst being recorded; returns it with its id, filled in for `{id}` in its file name.
    func insert(_ burst: RecordedBurst) throws -> RecordedBurst {
        try serial.transaction { session in
            let rows = try session.run(
                """
                INSERT INTO burst (channel_id, channel_name, speaker, speaker_name, started_at, duration_ms, packets,
                    bytes, file, state)
                VALUES (\(burst.channel.description), \(burst.channelName), \(burst.speaker), \(burst.speakerName),
                    \(burst.startedAt.timeIntervalSince1970), \(burst.durationMs), \(burst.packets), \(burst.bytes),
                    \(burst.file), \(burst.state.rawValue))
                RETURNING id
                """)
            var stored = burst
            stored.id = try rows.first?.decode(Int64.self) ?? 0
            stored.file = burst.file.replacingOccurrences(of: "{id}", with: "\(stored.id)")
            if stored.file != burst.file {
                try session.run("UPDATE burst SET file = \(stored.file) WHERE id = \(stored.id)")
            }
            return stored
        }
    }

    /// Stores how a burst ended.
    func finish(_ id: Int64, durationMs: Int, packets: Int, bytes: Int, state: RecordingState) throws {
        try serial.serially { session in
            try session.run(
                """
                UPDATE burst SET duration_ms = \(durationMs), packets = \(packets), bytes = \(bytes),
                    state = \(state.rawValue) WHERE id = \(id)
                """)
        }
    }

    /// Removes bursts' rows.
    func delete(_ ids: [Int64]) throws {
        guard !ids.isEmpty else { return }
        try serial.serially { session in try session.run("DELETE FROM burst WHERE id = ANY(\(ids))") }
    }

    /// One burst by id.
    func burst(_ id: Int64) throws -> RecordedBurst? {
        try serial.serially { session in
            try session.run("SELECT \(unescaped: Self.columns) FROM burst WHERE id = \(id)").first.flatMap(
                Self.burst)
        }
    }

    /// A channel's bursts started at or after `since`, newest first, at most `limit`.
    func bursts(in channel: ChannelID, since: Date?, limit: Int) throws -> [RecordedBurst] {
        try serial.serially { session in
            try session.run(
                """
                SELECT \(unescaped: Self.columns) FROM burst
                WHERE channel_id = \(channel.description) AND started_at >= \(since?.timeIntervalSince1970 ?? 0)
                ORDER BY started_at DESC, id DESC LIMIT \(limit)
                """
            ).compactMap(Self.burst)
        }
    }

    /// The bursts of channels named (or with the id) `name`, except channel `except`'s, newest first.
    func bursts(named name: String, except: ChannelID?, since: Date?, limit: Int) throws -> [RecordedBurst] {
        try serial.serially { session in
            try session.run(
                """
                SELECT \(unescaped: Self.columns) FROM burst
                WHERE (channel_name = \(name) OR channel_id = \(name)) AND channel_id <> \(except?.description ?? "")
                    AND started_at >= \(since?.timeIntervalSince1970 ?? 0)
                ORDER BY started_at DESC, id DESC LIMIT \(limit)
                """
            ).compactMap(Self.burst)
        }
    }

    /// Every burst, oldest first.
    func all() throws -> [RecordedBurst] {
        try serial.serially { session in
            try session.run("SELECT \(unescaped: Self.columns) FROM burst ORDER BY started_at, id").compactMap(
                Self.burst)
        }
    }

    /// The size of every recording together, and when the oldest started.
    func totals() throws -> (bytes: Int, oldest: Date?) {
        try serial.serially { session in
            guard
                let row = try session.run("SELECT COALESCE(SUM(bytes), 0)::BIGINT, MIN(started_at) FROM burst").first
            else { return (0, nil) }
            let (bytes, oldest) = try row.decode((Int, Double?).self)
            return (bytes, oldest.map { Date(timeIntervalSince1970: $0) })
        }
    }

    /// The columns a burst row is read from, in the order they are decoded.
    static let columns =
        "id, channel_id, channel_name, speaker, speaker_name, started_at, duration_ms, packets, bytes, file, state"

    /// A row of ``columns``; nil if its channel id or state is not one this version knows.
    private static func burst(_ row: PostgresRow) throws -> RecordedBurst? {
        let (id, channel, channelName, speaker, speakerName, started, duration, packets, bytes, file, state) =
            try row.decode((Int64, String, String, String, String, Double, Int, Int, Int, String, String).self)
        guard let channel = ChannelID(string: channel), let state = RecordingState(rawValue: state) else { return nil }
        return RecordedBurst(
            id: id, channel: channel, channelName: channelName, speaker: speaker, speakerName: speakerName,
            startedAt: Date(timeIntervalSince1970: started), durationMs: duration, packets: packets, bytes: bytes,
            file: file, state: state)
    }
}
