/// Identifies one talk burst: from a member taking the floor to the floor going idle or to someone else.
public struct BurstID: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(_ rawValue: String) { self.rawValue = rawValue }
    /// A fresh identifier: 16 lowercase hex digits.
    public static func random(using generator: inout some RandomNumberGenerator) -> BurstID {
        let value = UInt64.random(in: 0...UInt64.max, using: &generator)
        let hex = String(value, radix: 16)
        return BurstID(String(repeating: "0", count: 16 - hex.count) + hex)
    }
    public var description: String { rawValue }
}

/// A member of a channel as the wake policy sees it when a burst starts.
public struct WakeCandidate: Sendable, Equatable {
    public var member: MemberID
    /// Whether the relay has a live media address for it: then it hears the burst without a wake.
    public var audioReachable: Bool
    public var route: WakeRoute
    public init(member: MemberID, audioReachable: Bool, route: WakeRoute) {
        self.member = member
        self.audioReachable = audioReachable
        self.route = route
    }
}

/// A wake to hand to a transport before `deadline`.
public struct WakeOrder: Sendable, Equatable {
    public var member: MemberID
    public var channel: ChannelID
    public var burst: BurstID
    public var route: WakeRoute
    public var deadline: PTTInstant
}

/// What the policy decided for one member at the start of a burst.
public enum WakeDecision: Sendable, Equatable {
    /// Wake it through `order.route` before `order.deadline`.
    case wake(WakeOrder)
    /// It needs a wake but has no route: the wake expires now (zero expiry: it is never kept for later).
    case expired(member: MemberID, burst: BurstID, reason: PushExpiry)
}

/// Who is woken for a talk burst: once per member per burst, every joined member that is neither the
/// speaker nor reachable by audio. Pure: the caller passes the instant and the candidates.
public struct WakePolicy: Sendable {
    /// Replaced by a configuration reload; bursts already running keep the deadlines they were given.
    public var configuration: WakeConfiguration

    /// The running burst of each channel and the members already decided for it.
    struct Burst: Sendable {
        var id: BurstID
        var speaker: MemberID
        /// When the burst started: every wake of the burst is due `maxDelay` after it.
        var startedAt: PTTInstant
        var decided: Set<MemberID>
    }
    private(set) var bursts: [ChannelID: Burst] = [:]

    public init(configuration: WakeConfiguration = WakeConfiguration()) { self.configuration = configuration }

    /// The burst running in a channel, if any.
    public func burst(in channel: ChannelID) -> BurstID? { bursts[channel]?.id }

    /// A burst starts (a member took the floor). A different burst running in the channel ends.
    ///
    /// Returns one decision for each candidate that needs a wake and was not decided for this burst
    /// before, and the burst that ended, if one did. Calling it again for the same burst decides only
    /// members not decided yet, so nobody is woken twice in a burst; their deadline is still the burst's
    /// first start plus `maxDelay` (a later `now` does not extend it).
    public mutating func burstStarted(
        _ burst: BurstID, in channel: ChannelID, speaker: MemberID,
        candidates: [WakeCandidate], now: PTTInstant
    ) -> (decisions: [WakeDecision], ended: BurstID?) {
        var ended: BurstID?
        var state: Burst
        if let running = bursts[channel], running.id == burst {
            state = running
        } else {
            ended = bursts[channel]?.id
            state = Burst(id: burst, speaker: speaker, startedAt: now, decided: [])
        }
        var decisions: [WakeDecision] = []
        let deadline = state.startedAt + configuration.maxDelay
        for candidate in candidates where candidate.member != state.speaker && !candidate.audioReachable {
            guard state.decided.insert(candidate.member).inserted else { continue }
            if candidate.route == .none {
                decisions.append(.expired(member: candidate.member, burst: burst, reason: .noRoute))
            } else {
                decisions.append(
                    .wake(
                        WakeOrder(
                            member: candidate.member, channel: channel, burst: burst,
                            route: candidate.route, deadline: deadline)))
            }
        }
        bursts[channel] = state
        return (decisions, ended)
    }

    /// The floor of a channel went idle: its burst ends. Returns the burst that ended, if one was running.
    public mutating func burstEnded(in channel: ChannelID) -> BurstID? {
        bursts.removeValue(forKey: channel)?.id
    }
}
