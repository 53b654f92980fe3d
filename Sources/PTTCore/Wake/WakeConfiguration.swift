/// The notifier's limits.
///
/// Encoded as the `wake` object of the server's config file, durations in whole milliseconds or seconds:
/// `{"maxDelayMs": 2000, "outboxCapacity": 256, "storedPerMember": 32, "announcementTtlSeconds": 3600,
///   "apnsConcurrency": 64}`. Every key is optional; a missing key takes its default.
public struct WakeConfiguration: Sendable, Equatable {
    /// A wake (zero expiry: now or never) that cannot be handed to a transport within this long after its
    /// burst started, or before its burst ends, is dropped and counted as expired. Default 2 s.
    public var maxDelay: Duration
    /// Pushes waiting for one connection (or for APNs) at most; beyond it the lowest-priority, oldest is dropped.
    public var outboxCapacity: Int
    /// Announcements stored per member at most; beyond it the oldest is dropped.
    public var storedPerMember: Int
    /// How long an announcement stays deliverable when the operator gives no TTL. Default 1 hour.
    public var announcementTTL: Duration
    /// APNs requests in flight at once at most.
    public var apnsConcurrency: Int

    /// The longest TTL an announcement may have (30 days, as APNs stores notifications).
    public static let maxAnnouncementTTL: Duration = .seconds(30 * 86_400)

    public init(
        maxDelay: Duration = .seconds(2), outboxCapacity: Int = 256, storedPerMember: Int = 32,
        announcementTTL: Duration = .seconds(3600), apnsConcurrency: Int = 64
    ) {
        self.maxDelay = maxDelay
        self.outboxCapacity = outboxCapacity
        self.storedPerMember = storedPerMember
        self.announcementTTL = announcementTTL
        self.apnsConcurrency = apnsConcurrency
    }
}

extension WakeConfiguration: Codable {
    public enum CodingKeys: String, CodingKey {
        case maxDelayMs, outboxCapacity, storedPerMember, announcementTtlSeconds, apnsConcurrency
    }

    /// Decodes a configuration; missing keys take their defaults. Throws `DecodingError.dataCorrupted`
    /// naming the key when a value is out of range.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = WakeConfiguration()
        maxDelay = .milliseconds(
            try c.decodeInteger(.maxDelayMs, in: 1...60_000, default: defaults.maxDelay.milliseconds))
        outboxCapacity = Int(
            try c.decodeInteger(.outboxCapacity, in: 1...100_000, default: Int64(defaults.outboxCapacity)))
        storedPerMember = Int(
            try c.decodeInteger(.storedPerMember, in: 1...1000, default: Int64(defaults.storedPerMember)))
        announcementTTL = .seconds(
            try c.decodeInteger(
                .announcementTtlSeconds, in: 1...Self.maxAnnouncementTTL.components.seconds,
                default: defaults.announcementTTL.components.seconds))
        apnsConcurrency = Int(
            try c.decodeInteger(.apnsConcurrency, in: 1...1000, default: Int64(defaults.apnsConcurrency)))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(maxDelay.milliseconds, forKey: .maxDelayMs)
        try c.encode(outboxCapacity, forKey: .outboxCapacity)
        try c.encode(storedPerMember, forKey: .storedPerMember)
        try c.encode(announcementTTL.components.seconds, forKey: .announcementTtlSeconds)
        try c.encode(apnsConcurrency, forKey: .apnsConcurrency)
    }
}
