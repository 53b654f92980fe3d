/// How a member's media is protected on the relay: the SRTP crypto suite agreed at join, per membership.
public enum MediaSuite: String, Sendable, Equatable, CaseIterable {
    /// RFC 3711's default: AES-128 in counter mode, HMAC-SHA1 tag truncated to 80 bits. What ffmpeg and
    /// most SRTP stacks speak; the default.
    case aesCM128HMACSHA1_80 = "AES_CM_128_HMAC_SHA1_80"
    /// RFC 7714: AES-128-GCM, a 16-byte tag; cheaper per packet where the CPU has AES-NI.
    case aeadAES128GCM = "AEAD_AES_128_GCM"

    /// The suite of a membership whose client asked for nothing.
    public static let `default` = MediaSuite.aesCM128HMACSHA1_80

    /// Bytes of master key and salt: 16 + 14 for AES-CM, 16 + 12 for GCM.
    public var keyLength: Int {
        switch self {
        case .aesCM128HMACSHA1_80: 30
        case .aeadAES128GCM: 28
        }
    }

    /// The first suite of `offered` (most preferred first) that the server speaks; the default when the
    /// client offered none; nil when it offered only suites the server does not speak.
    public static func choose(from offered: [String]?) -> MediaSuite? {
        guard let offered, !offered.isEmpty else { return .default }
        return offered.lazy.compactMap(MediaSuite.init(rawValue:)).first
    }
}
