import PTTProtocol

/// The longest announcement TTL the server accepts, in seconds: 30 days.
public let maximumAnnouncementTTL = 30 * 86_400

/// Why a TTL such as `15m` was refused.
public enum TTLError: Error, Equatable, CustomStringConvertible {
    /// Not a whole number with an optional `s`, `m`, `h` or `d` unit.
    case notADuration(String)
    /// A duration, but not within 1 s ... 30 d.
    case outOfRange(String)

    public var description: String {
        switch self {
        case .notADuration(let text):
            "'\(text)' is not a duration: use whole seconds (90 or 90s), minutes (15m), hours (2h) or days (7d)"
        case .outOfRange(let text):
            "'\(text)' is out of range: use 1 s to 30 d (\(maximumAnnouncementTTL) s)"
        }
    }
}

/// Reads a TTL as `pttctl announce --ttl` takes it: `90` or `90s` (seconds), `15m`, `2h`, `7d`.
/// Returns seconds, 1 to 30 days; anything else (fractions, signs, spaces, other units) throws.
public func parseTTL(_ text: String) throws -> Int {
    let seconds = try parseDuration(text)
    guard (1...maximumAnnouncementTTL).contains(seconds) else { throw TTLError.outOfRange(text) }
    return seconds
}

/// Reads a whole duration as `pttctl` takes them (`--ttl`, `--since`): `90` or `90s` (seconds), `15m`, `2h`,
/// `7d`. Returns seconds; a duration too large for `Int` throws `outOfRange`, anything else (fractions, signs,
/// spaces, other units) `notADuration`.
public func parseDuration(_ text: String) throws(TTLError) -> Int {
    let units: [Character: Int] = ["s": 1, "m": 60, "h": 3_600, "d": 86_400]
    var digits = Substring(text)
    var unit = 1
    if let last = text.last, let factor = units[last] {
        digits = digits.dropLast()
        unit = factor
    }
    guard !digits.isEmpty, digits.allSatisfy({ ("0"..."9").contains($0) }) else { throw .notADuration(text) }
    // All digits: a number too large for Int is still a duration, just out of range.
    guard let number = Int(digits) else { throw .outOfRange(text) }
    let (seconds, overflow) = number.multipliedReportingOverflow(by: unit)
    guard !overflow else { throw .outOfRange(text) }
    return seconds
}

/// The `LAST WAKE` cell of `pttctl channel`: outcome and transport, the reason in parentheses when there
/// is one, e.g. `sent local-push`, `expired none (no-route)`, `rejected apns (Unregistered)`; leave pushes
/// are marked `leave: ...`; `-` when nothing was tried since the server started.
public func lastWakeCell(_ status: LastWakeStatus?) -> String {
    guard let status else { return "-" }
    var cell = "\(status.outcome) \(status.transport)"
    if let reason = status.reason, !reason.isEmpty { cell += " (\(reason))" }
    return status.kind == .wake ? cell : "\(status.kind): \(cell)"
}

/// A short age for people: `42 s`, `17 min`, `3 h`.
public func describeAge(seconds: Int) -> String {
    let seconds = max(0, seconds)
    if seconds < 120 { return "\(seconds) s" }
    if seconds < 2 * 3_600 { return "\(seconds / 60) min" }
    return "\(seconds / 3_600) h"
}

/// The lines above the table of `pttctl wakes`: since when, the APNs transport, stored and pending pushes.
public func wakeSummaryLines(_ totals: WakeTotals) -> [String] {
    var apns = "APNs: not configured"
    if totals.apnsConfigured {
        apns = "APNs: configured" + (totals.apnsEndpoint.map { " (\($0))" } ?? "")
        apns +=
            totals.apnsTokenAgeSeconds.map { ", provider token \(describeAge(seconds: $0)) old" }
            ?? ", no provider token yet"
    }
    if let until = totals.apnsBackoffUntil { apns += ", backing off until \(until)" }
    return [
        "counting since \(totals.since)",
        apns,
        "stored announcements: \(totals.storedAnnouncements), pending wakes: \(totals.pending)",
    ]
}

/// The rows of `pttctl wakes` (KIND TRANSPORT OUTCOME REASON COUNT), sorted by kind, transport, outcome
/// and reason; an empty reason shows as `-`.
public func wakeCountRows(_ counts: [WakeCount]) -> [[String]] {
    func key(_ count: WakeCount) -> [String] {
        [count.kind.rawValue, count.transport.rawValue, count.outcome.rawValue, count.reason]
    }
    return counts.sorted { key($0).lexicographicallyPrecedes(key($1)) }.map {
        [
            $0.kind.rawValue, $0.transport.rawValue, $0.outcome.rawValue, $0.reason.isEmpty ? "-" : $0.reason,
            "\($0.count)",
        ]
    }
}
