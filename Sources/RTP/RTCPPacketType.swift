/// An RTCP packet type (RFC 3550 §12.1). With rtcp-mux (RFC 5761) every RTCP type lies in 192–223.
public struct RTCPPacketType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8

    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// SR, sender report (200).
    public static let senderReport = RTCPPacketType(rawValue: 200)
    /// RR, receiver report (201).
    public static let receiverReport = RTCPPacketType(rawValue: 201)
    /// SDES, source description (202).
    public static let sourceDescription = RTCPPacketType(rawValue: 202)
    /// BYE, goodbye (203).
    public static let goodbye = RTCPPacketType(rawValue: 203)
    /// APP, application-defined (204).
    public static let applicationDefined = RTCPPacketType(rawValue: 204)

    /// The range RFC 5761 §4 reserves for RTCP when RTP and RTCP share a port.
    public static let muxRange: ClosedRange<UInt8> = 192...223

    public var description: String {
        switch self {
        case .senderReport: "SR"
        case .receiverReport: "RR"
        case .sourceDescription: "SDES"
        case .goodbye: "BYE"
        case .applicationDefined: "APP"
        default: "RTCP(\(rawValue))"
        }
    }
}
