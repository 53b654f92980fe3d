/// Notices a dead connection from the client's side: the server sends a heartbeat every interval, so a connection
/// that has carried nothing for ``overdueAfter`` (one and a half intervals) is blackholed, even while TCP has not
/// noticed (it may take minutes to).
///
/// Pure: times are monotonic nanoseconds the caller passes in.
public struct HeartbeatWatch: Sendable, Equatable {
    /// The server's heartbeat interval (`welcome.heartbeatIntervalMs`), in nanoseconds.
    public let interval: UInt64
    /// When the connection last carried a frame.
    public private(set) var lastHeard: UInt64

    /// A watch over a connection whose server sends heartbeats every `intervalMs` milliseconds, heard from at `now`.
    public init(intervalMs: Int, now: UInt64) {
        interval = UInt64(max(intervalMs, 1)) * 1_000_000
        lastHeard = now
    }

    /// How long silence may last before the connection counts as dead: 1.5 intervals.
    public var overdueAfter: UInt64 { interval + interval / 2 }

    /// How often to look: a tenth of an interval, at least 5 ms, so a dead link is noticed within 1.6 intervals.
    public var checkEvery: UInt64 { max(interval / 10, 5_000_000) }

    /// A frame arrived at `now`.
    public mutating func heard(at now: UInt64) { lastHeard = max(lastHeard, now) }

    /// Whether nothing has arrived for longer than ``overdueAfter`` at `now`.
    public func isOverdue(at now: UInt64) -> Bool { now > lastHeard && now - lastHeard > overdueAfter }
}
