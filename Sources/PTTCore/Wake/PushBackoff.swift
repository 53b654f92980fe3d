import Foundation

/// When to stay away from a push service (APNs) after it asked for less traffic or could not be reached.
///
/// After a back-off answer the service is avoided for 1 s; each further back-off answer doubles the pause, up to
/// 60 s. A delivered notification resets it. Other refusals (a dead token, an expired provider token) say nothing
/// about the service's health and leave it as it is.
///
/// Back-off answers that arrive while a pause is running come from requests sent before it started, so they do
/// not lengthen it: the pause doubles once per failed attempt after the previous pause, not once per concurrent
/// request.
///
/// Pure: every call takes the current wall-clock time (the pause is reported to operators as a date).
public struct PushBackoff: Sendable, Equatable {
    /// The first pause.
    public static let initialDelay: TimeInterval = 1
    /// The longest pause.
    public static let maximumDelay: TimeInterval = 60

    /// Until when the service is avoided; nil when it is not (or no longer matters: check `isBackingOff(now:)`).
    public private(set) var until: Date?
    /// The length of the last pause, nil after a success or before any back-off.
    public private(set) var lastDelay: TimeInterval?

    /// A service in good health.
    public init() {}

    /// Whether sends should skip the service at `now`.
    public func isBackingOff(now: Date) -> Bool {
        guard let until else { return false }
        return now < until
    }

    /// The service answered "too many requests" or "unavailable", or could not be reached, at `now`.
    public mutating func recordBackOff(now: Date) {
        if isBackingOff(now: now) { return }
        let delay = lastDelay.map { min($0 * 2, Self.maximumDelay) } ?? Self.initialDelay
        lastDelay = delay
        until = now.addingTimeInterval(delay)
    }

    /// The service delivered a notification: the next failure starts again at 1 s.
    public mutating func recordSuccess() {
        until = nil
        lastDelay = nil
    }
}
