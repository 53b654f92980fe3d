/// How private calls behave (config `calls`, Docs/CALLS-DESIGN.md).
public struct CallConfiguration: Sendable, Equatable {
    /// What a call does to a callee who is in an ordinary burst (holding a floor or hearing one).
    public enum WhileBusy: String, Sendable, Equatable, CaseIterable {
        /// Ring at once; the callee's app shows a waiting call.
        case ring
        /// Hold the call until the callee's burst ends, then ring (within the ring timeout).
        case queue
    }

    /// How long a call rings before it ends `no-answer`.
    public var ringTimeout: Duration
    /// How long a connected call may go without a burst before it ends `silence`.
    public var idleTimeout: Duration
    /// Calls ringing at once in the whole server; one more is refused `unavailable`.
    public var maxRinging: Int
    /// Whether a user may call any user, not only one it shares a channel with.
    public var anyone: Bool
    public var whileBusy: WhileBusy

    public init(
        ringTimeout: Duration = .seconds(30), idleTimeout: Duration = .seconds(60), maxRinging: Int = 100,
        anyone: Bool = false, whileBusy: WhileBusy = .ring
    ) {
        self.ringTimeout = ringTimeout
        self.idleTimeout = idleTimeout
        self.maxRinging = maxRinging
        self.anyone = anyone
        self.whileBusy = whileBusy
    }
}

/// `calls` in the config file: `ringSeconds`, `idleSeconds`, `maxRinging`, `anyone`, `whileBusy` (`ring`, `queue`);
/// each absent one keeps its default.
extension CallConfiguration: Codable {
    public enum CodingKeys: String, CodingKey {
        case ringSeconds, idleSeconds, maxRinging, anyone, whileBusy
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = CallConfiguration()
        func seconds(_ key: CodingKeys, _ fallback: Duration) throws -> Duration {
            guard let value = try c.decodeIfPresent(Double.self, forKey: key) else { return fallback }
            guard value > 0, value <= 86_400 else {
                throw DecodingError.dataCorrupted(
                    .init(codingPath: c.codingPath + [key], debugDescription: "must be more than 0 and at most 86400"))
            }
            return .milliseconds(Int64((value * 1000).rounded()))
        }
        ringTimeout = try seconds(.ringSeconds, defaults.ringTimeout)
        idleTimeout = try seconds(.idleSeconds, defaults.idleTimeout)
        maxRinging = try c.decodeIfPresent(Int.self, forKey: .maxRinging) ?? defaults.maxRinging
        guard maxRinging >= 1 else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: c.codingPath + [CodingKeys.maxRinging], debugDescription: "must be at least 1"))
        }
        anyone = try c.decodeIfPresent(Bool.self, forKey: .anyone) ?? defaults.anyone
        if let text = try c.decodeIfPresent(String.self, forKey: .whileBusy) {
            guard let policy = WhileBusy(rawValue: text) else {
                throw DecodingError.dataCorrupted(
                    .init(codingPath: c.codingPath + [CodingKeys.whileBusy], debugDescription: "must be ring or queue"))
            }
            whileBusy = policy
        } else {
            whileBusy = defaults.whileBusy
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(
            Double(ringTimeout.components.seconds) + Double(ringTimeout.components.attoseconds) / 1e18,
            forKey: .ringSeconds)
        try c.encode(
            Double(idleTimeout.components.seconds) + Double(idleTimeout.components.attoseconds) / 1e18,
            forKey: .idleSeconds)
        try c.encode(maxRinging, forKey: .maxRinging)
        try c.encode(anyone, forKey: .anyone)
        try c.encode(whileBusy.rawValue, forKey: .whileBusy)
    }
}
