/// When to try connecting again: exponential back-off with full jitter (each wait is drawn uniformly between zero
/// and a ceiling that doubles after each failure, up to ``maximum``), so that a hundred phones that lost the same
/// access point do not all come back in the same millisecond.
///
/// Pure: the random source is injected, so tests draw the numbers they choose.
public struct ReconnectBackoff: Sendable, Equatable {
    /// The ceiling of the first wait.
    public var initial: Duration
    /// The largest ceiling.
    public var maximum: Duration
    /// Failures since the last success.
    public private(set) var failures = 0

    /// A back-off whose first ceiling is `initial` (default 100 ms), doubling up to `maximum` (default 10 s).
    public init(initial: Duration = .milliseconds(100), maximum: Duration = .seconds(10)) {
        self.initial = initial
        self.maximum = maximum
    }

    /// The ceiling of the next wait.
    public var ceiling: Duration {
        let doublings = min(failures, 30)
        let scaled = initial * (1 << doublings)
        return scaled < maximum ? scaled : maximum
    }

    /// Counts a failure and returns how long to wait before the next try: `unit` (in 0..<1, from the caller's
    /// random source) times the ceiling.
    public mutating func nextDelay(unit: Double) -> Duration {
        let delay = ceiling * max(0, min(unit, 1))
        failures += 1
        return delay
    }

    /// Forgets the failures: after a success, or when the network path changed and the next try should come at once.
    public mutating func reset() { failures = 0 }
}
