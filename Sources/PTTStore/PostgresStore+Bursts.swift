import Foundation
import PTTCore

/// Recorded bursts' metadata: ``Storage``'s calls, answered by the burst rows.
extension PostgresStore {
    public func insertBurst(_ burst: RecordedBurst) throws -> RecordedBurst {
        try burstRows.insert(burst)
    }

    public func finishBurst(_ id: Int64, durationMs: Int, packets: Int, bytes: Int, state: RecordingState) throws {
        try burstRows.finish(id, durationMs: durationMs, packets: packets, bytes: bytes, state: state)
    }

    public func deleteBursts(_ ids: [Int64]) throws {
        try burstRows.delete(ids)
    }

    public func burst(_ id: Int64) throws -> RecordedBurst? {
        try burstRows.burst(id)
    }

    public func bursts(in channel: ChannelID, since: Date?, limit: Int) throws -> [RecordedBurst] {
        try burstRows.bursts(in: channel, since: since, limit: limit)
    }

    public func bursts(named name: String, except: ChannelID?, since: Date?, limit: Int) throws -> [RecordedBurst] {
        try burstRows.bursts(named: name, except: except, since: since, limit: limit)
    }

    public func allBursts() throws -> [RecordedBurst] {
        try burstRows.all()
    }

    public func burstTotals() throws -> (bytes: Int, oldest: Date?) {
        try burstRows.totals()
    }
}
