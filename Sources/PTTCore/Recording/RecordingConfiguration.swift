/// Which channels are recorded besides those switched on with `pttctl channel record`, and how long recordings
/// are kept.
///
/// JSON (config key `recording`, every key optional):
/// `{"channels": ["ops"], "maxAgeHours": 720, "maxTotalMB": 1024}`.
public struct RecordingConfiguration: Sendable, Equatable {
    /// Channel names recorded whatever their stored switch says.
    public var channels: [String]
    /// Recordings older than this are removed. Default 30 days.
    public var maxAge: Duration
    /// All recordings together take at most this many bytes; the oldest go first. Default 1 GiB.
    public var maxTotalBytes: Int

    public init(channels: [String] = [], maxAge: Duration = .seconds(30 * 86_400), maxTotalBytes: Int = 1 << 30) {
        self.channels = channels
        self.maxAge = maxAge
        self.maxTotalBytes = maxTotalBytes
    }
}

extension RecordingConfiguration: Codable {
    public enum CodingKeys: String, CodingKey {
        case channels, maxAgeHours, maxTotalMB
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = RecordingConfiguration()
        channels = try c.decodeIfPresent([String].self, forKey: .channels) ?? defaults.channels
        maxAge = .seconds(
            3600
                * (try c.decodeInteger(.maxAgeHours, in: 1...87_600, default: defaults.maxAge.components.seconds / 3600))
        )
        maxTotalBytes =
            Int(try c.decodeInteger(.maxTotalMB, in: 1...10_000_000, default: Int64(defaults.maxTotalBytes >> 20)))
            << 20
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(channels, forKey: .channels)
        try c.encode(maxAge.components.seconds / 3600, forKey: .maxAgeHours)
        try c.encode(maxTotalBytes >> 20, forKey: .maxTotalMB)
    }
}
