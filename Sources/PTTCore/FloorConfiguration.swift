/// The timers and limits of one channel's floor control (MCPTT terms: T1, T2, T3 and the queue).
///
/// Encoded as JSON with durations in whole milliseconds:
/// `{"endOfMediaTimeoutMs": 2000, "maxTalkTimeMs": 30000, "preemptionGraceMs": 1000, "releaseGraceMs": 500,
///   "queueCapacityPerPriority": 8, "grantToSingleMember": true}`.
/// Every key is optional when decoding; a missing key takes its default.
public struct FloorConfiguration: Sendable, Codable, Equatable {
    /// T1: the holder is revoked (``FloorRevokeCause/endOfMedia``) when no media arrives from it
    /// for this long since the grant or since its last media. Default 2 s.
    public var endOfMediaTimeout: Duration
    /// T2: the holder is revoked (``FloorRevokeCause/talkTimeExceeded``) this long after the grant. Default 30 s.
    public var maxTalkTime: Duration
    /// T3: when a strictly-higher-priority member asks for the floor, the holder is warned and
    /// revoked (``FloorRevokeCause/preempted``) after this grace. Default 1 s.
    public var preemptionGrace: Duration
    /// After a release to an idle floor, the former holder's late audio is forwarded and is no floor request for
    /// this long; after a revocation, until it has been silent this long (``FloorControl/ReleaseGrace``).
    /// Default 500 ms (``FloorControl/releaseGrace``).
    public var releaseGrace: Duration
    /// How many members may wait at each priority level (a bounded FIFO per level). Default 8.
    ///
    /// A request finding its level full is denied with ``FloorDenyCause/queueFull``;
    /// with a capacity of 0 nobody queues and requests are denied with
    /// ``FloorDenyCause/anotherMemberHasPermission``.
    public var queueCapacityPerPriority: Int
    /// Whether a member alone in its channel may take the floor. Default `true`; when `false`
    /// such a request is denied with ``FloorDenyCause/onlyOneParticipant``.
    public var grantToSingleMember: Bool

    /// Creates a configuration; every parameter has the MCPTT-like default.
    ///
    /// Values are not validated here (decoding validates); ``FloorControl`` treats negative
    /// durations as zero and a negative capacity as zero.
    public init(
        endOfMediaTimeout: Duration = .seconds(2),
        maxTalkTime: Duration = .seconds(30),
        preemptionGrace: Duration = .seconds(1),
        releaseGrace: Duration = FloorControl.releaseGrace,
        queueCapacityPerPriority: Int = 8,
        grantToSingleMember: Bool = true
    ) {
        self.endOfMediaTimeout = endOfMediaTimeout
        self.maxTalkTime = maxTalkTime
        self.preemptionGrace = preemptionGrace
        self.releaseGrace = releaseGrace
        self.queueCapacityPerPriority = queueCapacityPerPriority
        self.grantToSingleMember = grantToSingleMember
    }

    /// The JSON keys.
    public enum CodingKeys: String, CodingKey {
        case endOfMediaTimeoutMs
        case maxTalkTimeMs
        case preemptionGraceMs
        case releaseGraceMs
        case queueCapacityPerPriority
        case grantToSingleMember
    }

    /// Decodes a configuration; missing keys take their defaults.
    ///
    /// Throws `DecodingError.dataCorrupted` naming the key when a value is negative,
    /// or when `endOfMediaTimeoutMs` or `maxTalkTimeMs` is zero.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = FloorConfiguration()
        func milliseconds(_ key: CodingKeys, default value: Duration, allowZero: Bool) throws -> Duration {
            guard let ms = try container.decodeIfPresent(Int64.self, forKey: key) else { return value }
            if ms < 0 || (ms == 0 && !allowZero) {
                throw DecodingError.dataCorrupted(
                    .init(
                        codingPath: container.codingPath + [key],
                        debugDescription:
                            "\(key.stringValue) must be \(allowZero ? "zero or positive" : "positive"), got \(ms)"
                    ))
            }
            return .milliseconds(ms)
        }
        endOfMediaTimeout = try milliseconds(
            .endOfMediaTimeoutMs, default: defaults.endOfMediaTimeout, allowZero: false)
        maxTalkTime = try milliseconds(.maxTalkTimeMs, default: defaults.maxTalkTime, allowZero: false)
        preemptionGrace = try milliseconds(.preemptionGraceMs, default: defaults.preemptionGrace, allowZero: true)
        releaseGrace = try milliseconds(.releaseGraceMs, default: defaults.releaseGrace, allowZero: true)
        let capacity =
            try container.decodeIfPresent(Int.self, forKey: .queueCapacityPerPriority)
            ?? defaults.queueCapacityPerPriority
        if capacity < 0 {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: container.codingPath + [CodingKeys.queueCapacityPerPriority],
                    debugDescription: "queueCapacityPerPriority must be zero or positive, got \(capacity)"
                ))
        }
        queueCapacityPerPriority = capacity
        grantToSingleMember =
            try container.decodeIfPresent(Bool.self, forKey: .grantToSingleMember)
            ?? defaults.grantToSingleMember
    }

    /// Encodes every key, durations as whole milliseconds (rounded down).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(endOfMediaTimeout.milliseconds, forKey: .endOfMediaTimeoutMs)
        try container.encode(maxTalkTime.milliseconds, forKey: .maxTalkTimeMs)
        try container.encode(preemptionGrace.milliseconds, forKey: .preemptionGraceMs)
        try container.encode(releaseGrace.milliseconds, forKey: .releaseGraceMs)
        try container.encode(queueCapacityPerPriority, forKey: .queueCapacityPerPriority)
        try container.encode(grantToSingleMember, forKey: .grantToSingleMember)
    }
}
