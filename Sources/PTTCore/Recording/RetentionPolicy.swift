import Foundation

/// Which recordings go: every one older than the maximum age, then the oldest until the rest fit the total size.
/// Pure: the recordings and the time are given.
public struct RetentionPolicy: Sendable, Equatable {
    public var maxAge: Duration
    public var maxTotalBytes: Int

    public init(maxAge: Duration, maxTotalBytes: Int) {
        self.maxAge = maxAge
        self.maxTotalBytes = maxTotalBytes
    }

    public init(_ configuration: RecordingConfiguration) {
        self.init(maxAge: configuration.maxAge, maxTotalBytes: configuration.maxTotalBytes)
    }

    /// The ids to remove, oldest first, among `bursts` (id, start, size; any order). Bursts still being recorded
    /// are never removed.
    public func expired(_ bursts: [(id: Int64, startedAt: Date, bytes: Int, recording: Bool)], now: Date) -> [Int64] {
        let cutoff = now.addingTimeInterval(-Double(maxAge.components.seconds))
        let oldestFirst = bursts.sorted { ($0.startedAt, $0.id) < ($1.startedAt, $1.id) }
        var total = bursts.reduce(0) { $0 + $1.bytes }
        var removed: [Int64] = []
        for burst in oldestFirst where !burst.recording {
            guard burst.startedAt < cutoff || total > maxTotalBytes else { continue }
            removed.append(burst.id)
            total -= burst.bytes
        }
        return removed
    }
}
