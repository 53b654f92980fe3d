/// Why bytes are not a well-formed RTP packet (RFC 3550 §5.1).
public enum RTPParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Fewer than the 12 bytes of the fixed header.
    case tooShort
    /// The version field is not 2.
    case badVersion
    /// The CSRC list (4 bytes × CC) runs past the end of the packet.
    case csrcOverrun
    /// The header extension (its 4-byte header or its body) runs past the end of the packet.
    case extensionOverrun
    /// The P bit is set but the last byte (the pad count) is 0 or larger than what follows the header.
    case badPadding

    public var description: String {
        switch self {
        case .tooShort: "RTP packet shorter than the 12-byte fixed header"
        case .badVersion: "RTP version is not 2"
        case .csrcOverrun: "RTP CSRC list runs past the end of the packet"
        case .extensionOverrun: "RTP header extension runs past the end of the packet"
        case .badPadding: "RTP padding count is 0 or exceeds the payload"
        }
    }
}
