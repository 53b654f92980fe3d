/// Why bytes are not a well-formed RTCP packet or compound packet (RFC 3550 §6.1, Appendix A.2).
public enum RTCPParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Fewer than the 4 bytes of the common header (or trailing bytes too few for another header).
    case tooShort
    /// The version field is not 2.
    case badVersion
    /// The packet type is outside 192–223, so this is not RTCP.
    case notRTCP(UInt8)
    /// The length field claims more bytes than are present.
    case lengthOverrun
    /// Padding on a packet that is not the last of a compound, or a pad count of 0 or larger than
    /// the packet body.
    case badPadding
    /// A compound packet does not start with an SR or RR.
    case firstPacketNotReport(UInt8)

    public var description: String {
        switch self {
        case .tooShort: "RTCP packet shorter than its 4-byte header"
        case .badVersion: "RTCP version is not 2"
        case let .notRTCP(pt): "packet type \(pt) is not an RTCP type (192–223)"
        case .lengthOverrun: "RTCP length field runs past the end of the data"
        case .badPadding: "RTCP padding is misplaced or its count is invalid"
        case let .firstPacketNotReport(pt): "RTCP compound packet starts with type \(pt), not SR or RR"
        }
    }
}
