/// A point on a monotonic time line, in nanoseconds from an arbitrary origin.
///
/// The pure core never reads a clock itself: every call that depends on time takes `now`.
/// The server passes a monotonic reading; tests pass whatever instant they choose.
public struct PTTInstant: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var nanoseconds: UInt64
    public init(nanoseconds: UInt64) { self.nanoseconds = nanoseconds }

    public static let zero = PTTInstant(nanoseconds: 0)

    public static func < (lhs: PTTInstant, rhs: PTTInstant) -> Bool { lhs.nanoseconds < rhs.nanoseconds }

    /// Moves the instant by `rhs`, saturating at zero and at `UInt64.max`.
    public static func + (lhs: PTTInstant, rhs: Duration) -> PTTInstant {
        let delta = rhs.nanoseconds
        if delta >= 0 {
            let (sum, overflow) = lhs.nanoseconds.addingReportingOverflow(UInt64(delta))
            return PTTInstant(nanoseconds: overflow ? .max : sum)
        }
        let back = delta.magnitude
        return PTTInstant(nanoseconds: lhs.nanoseconds >= back ? lhs.nanoseconds - back : 0)
    }

    /// The time from `earlier` to `self`; zero if `earlier` is later.
    public func since(_ earlier: PTTInstant) -> Duration {
        guard nanoseconds > earlier.nanoseconds else { return .zero }
        return .nanoseconds(Int64(clamping: nanoseconds - earlier.nanoseconds))
    }

    public var description: String { "t+\(Double(nanoseconds) / 1e9)s" }
}

/// A source of monotonic instants, injected into the runtime so tests can drive time.
public protocol PTTClock: Sendable {
    func now() -> PTTInstant
}

extension Duration {
    /// The whole duration in nanoseconds (saturating at `Int64.min` and `Int64.max`).
    public var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? .min : .max }
        let (sum, sumOverflow) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000)
        if sumOverflow { return seconds < 0 ? .min : .max }
        return sum
    }
    /// The whole duration in milliseconds, truncated toward zero.
    public var milliseconds: Int64 { nanoseconds / 1_000_000 }
}
