/// How audio is protected between a member and the relay, the same for every membership on a server. On
/// the wire and in the config file it is the raw value: `srtp` or `none`.
public enum MediaSecurity: String, Codable, Sendable, CaseIterable, CustomStringConvertible {
    /// SRTP with the membership's key and suite (the default).
    case srtp
    /// Plain RTP (`none`): for tests, and networks where the link itself is protected.
    case plain = "none"

    public var description: String { rawValue }

    /// The operator's spelling of every value, for messages: `'srtp' or 'none'`.
    public static var spelled: String { allCases.map { "'\($0.rawValue)'" }.joined(separator: " or ") }
}
