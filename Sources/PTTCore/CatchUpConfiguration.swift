/// Who hears the current talk burst from its first packet when they reach the relay during it.
public enum CatchUpMode: String, Sendable, Codable, CaseIterable {
    /// Nobody: a member reaching the relay mid-burst hears the rest of it, live.
    case off
    /// Members woken for the burst (a `pushtotalk` wake was handed over for it).
    case woken
    /// Every member that becomes reachable by audio during the burst, woken or not.
    case lateJoiners = "late-joiners"

    public static var spelled: String { allCases.map { "'\($0.rawValue)'" }.joined(separator: ", ") }
}

/// How the relay keeps the current burst of every channel and plays it to members that arrive late.
///
/// JSON (config key `catchUp`, every key optional):
/// `{"mode": "woken", "speed": 4, "channelMaxBytes": 1048576, "serverMaxBytes": 67108864,
///   "maxPacketsPerSecond": 25000}`.
public struct CatchUpConfiguration: Sendable, Equatable {
    public var mode: CatchUpMode
    /// How much faster than real time the kept packets go out to a member catching up (the audio it has not
    /// heard, in RTP time, divided by the wall-clock time it takes to send). Default 4.
    public var speed: Double
    /// Bytes kept for one channel's burst at most (payloads and their bookkeeping); beyond it the oldest packets
    /// go. Default 1 MiB: 30 s of voice at any bit rate a phone sends.
    public var channelMaxBytes: Int
    /// Bytes kept for every channel's burst together at most; beyond it the oldest packets of the whole server
    /// go. Default 64 MiB.
    public var serverMaxBytes: Int
    /// Kept packets the relay sends per second at most, to every member catching up or replaying together: they
    /// go out a few at a time between live packets, so live listeners keep their latency. Members catching up at
    /// once share it. Default 25,000 (100 members catching up at 4× real time with 20 ms packets).
    public var maxPacketsPerSecond: Int

    public static let speeds: ClosedRange<Double> = 1.1...20

    public init(
        mode: CatchUpMode = .woken, speed: Double = 4, channelMaxBytes: Int = 1 << 20, serverMaxBytes: Int = 64 << 20,
        maxPacketsPerSecond: Int = 25_000
    ) {
        self.mode = mode
        self.speed = speed
        self.channelMaxBytes = channelMaxBytes
        self.serverMaxBytes = serverMaxBytes
        self.maxPacketsPerSecond = maxPacketsPerSecond
    }
}

extension CatchUpConfiguration: Codable {
    public enum CodingKeys: String, CodingKey {
        case mode, speed, channelMaxBytes, serverMaxBytes, maxPacketsPerSecond
    }

    /// Decodes a configuration; missing keys take their defaults. Throws `DecodingError.dataCorrupted` naming the
    /// key when a value is out of range.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = CatchUpConfiguration()
        if let text = try c.decodeIfPresent(String.self, forKey: .mode) {
            guard let mode = CatchUpMode(rawValue: text) else {
                throw DecodingError.dataCorrupted(
                    .init(
                        codingPath: c.codingPath + [CodingKeys.mode],
                        debugDescription: "mode must be \(CatchUpMode.spelled), got '\(text)'"))
            }
            self.mode = mode
        } else {
            mode = defaults.mode
        }
        speed = try c.decodeIfPresent(Double.self, forKey: .speed) ?? defaults.speed
        guard Self.speeds.contains(speed) else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: c.codingPath + [CodingKeys.speed],
                    debugDescription:
                        "speed must be \(Self.speeds.lowerBound)...\(Self.speeds.upperBound), got \(speed)"
                ))
        }
        channelMaxBytes = Int(
            try c.decodeInteger(.channelMaxBytes, in: 65_536...(256 << 20), default: Int64(defaults.channelMaxBytes)))
        serverMaxBytes = Int(
            try c.decodeInteger(.serverMaxBytes, in: 65_536...(16 << 30), default: Int64(defaults.serverMaxBytes)))
        maxPacketsPerSecond = Int(
            try c.decodeInteger(
                .maxPacketsPerSecond, in: 500...10_000_000, default: Int64(defaults.maxPacketsPerSecond)))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(mode, forKey: .mode)
        try c.encode(speed, forKey: .speed)
        try c.encode(channelMaxBytes, forKey: .channelMaxBytes)
        try c.encode(serverMaxBytes, forKey: .serverMaxBytes)
        try c.encode(maxPacketsPerSecond, forKey: .maxPacketsPerSecond)
    }
}
