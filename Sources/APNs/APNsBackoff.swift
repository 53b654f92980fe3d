import Foundation

/// When to stay away from APNs after it asked for less traffic or could not be reached.
///
/// After an outcome whose action is `.backOff`, APNs is avoided for 1 s; each further back-off outcome doubles
/// the pause, up to 60 s. A delivered notification (`.sent`) resets it. Other rejections (a dead token, an
/// expired provider token) say nothing about APNs' health and leave it as it is.
///
/// Back-off outcomes that arrive while a pause is running come from requests sent before it started, so they
/// do not lengthen it: the pause doubles once per failed attempt after the previous pause, not once per
/// concurrent request.
///
/// Pure: every call takes the current time.
public struct APNsBackoff: Sendable, Equatable {
    /// The first pause.
    public static let initialDelay: TimeInterval = 1
    /// The longest pause.
    public static let maximumDelay: TimeInterval = 60

    /// Until when APNs is avoided; nil when it is not (or no longer matters: check `isBackingOff(now:)`).
    public private(set) var until: Date?
    /// The length of the last pause, nil after a success or before any back-off.
    public private(set) var lastDelay: TimeInterval?

    /// Not backing off.
    public init() {}

    /// Whether sends should skip APNs at `now`.
    public func isBackingOff(now: Date) -> Bool {
        guard let until else { return false }
        return now < until
    }

    /// Takes the outcome of a send into account.
    public mutating func record(_ outcome: APNsOutcome, now: Date) {
        if case .sent = outcome {
            recordSuccess()
        } else if outcome.action == .backOff {
            recordBackOff(now: now)
        }
    }

    /// APNs answered 429/500/503 or could not be reached at `now`.
    public mutating func recordBackOff(now: Date) {
        if isBackingOff(now: now) { return }
        let delay = lastDelay.map { min($0 * 2, Self.maximumDelay) } ?? Self.initialDelay
        lastDelay = delay
        until = now.addingTimeInterval(delay)
    }

    /// APNs delivered a notification: the next failure starts again at 1 s.
    public mutating func recordSuccess() {
        until = nil
        lastDelay = nil
    }
}
