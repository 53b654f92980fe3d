/// The common header of one RTCP packet (RFC 3550 §6.4), plus the SSRC that follows it.
///
/// ```
/// |V=2|P|   count |      PT       |    length (32-bit words − 1)  |
/// |                 SSRC of sender / first chunk / first source   |
/// ```
public struct RTCPHeader: Sendable, Equatable {
    /// Length of the common header, without the SSRC.
    public static let commonLength = 4

    /// The P bit: this packet ends with padding whose last byte is the pad count.
    public var padding: Bool
    /// The 5-bit count field: report blocks (SR/RR), chunks (SDES), sources (BYE), or subtype (APP).
    public var count: Int
    /// The packet type.
    public var packetType: RTCPPacketType
    /// The length field as sent: the packet's length in 32-bit words minus one.
    public var lengthField: UInt16
    /// The word after the common header: the sender's SSRC for SR, RR and APP, the first chunk's
    /// SSRC for SDES, the first source for BYE; nil when the packet is only 4 bytes long.
    public var ssrc: UInt32?

    /// Creates a header description.
    public init(padding: Bool = false, count: Int, packetType: RTCPPacketType, lengthField: UInt16, ssrc: UInt32?) {
        self.padding = padding
        self.count = count
        self.packetType = packetType
        self.lengthField = lengthField
        self.ssrc = ssrc
    }

    /// The packet's length in bytes, header included: (``lengthField`` + 1) × 4.
    public var packetLength: Int { (Int(lengthField) + 1) * 4 }

    /// Parses the RTCP packet at the start of `bytes`, which may be followed by more packets of a
    /// compound. Checks at least 4 bytes (`tooShort`), V = 2 (`badVersion`), a type in 192–223
    /// (`notRTCP`) and that the length field fits in `bytes` (`lengthOverrun`). Does not allocate.
    ///
    /// Only the first 8 bytes of an SRTCP packet are in the clear; unprotect before looking further.
    public static func parse(_ bytes: UnsafeRawBufferPointer) throws(RTCPParseError) -> RTCPHeader {
        guard bytes.count >= commonLength else { throw .tooShort }
        let b0 = bytes[0]
        guard b0 >> 6 == 2 else { throw .badVersion }
        let type = bytes[1]
        guard RTCPPacketType.muxRange.contains(type) else { throw .notRTCP(type) }
        let lengthField = bytes.rtpUInt16(at: 2)
        let packetLength = (Int(lengthField) + 1) * 4
        guard packetLength <= bytes.count else { throw .lengthOverrun }
        return RTCPHeader(
            padding: b0 & 0x20 != 0,
            count: Int(b0 & 0x1F),
            packetType: RTCPPacketType(rawValue: type),
            lengthField: lengthField,
            ssrc: packetLength >= 8 ? bytes.rtpUInt32(at: 4) : nil
        )
    }

    /// Parses the RTCP packet at the start of `bytes`. See the `UnsafeRawBufferPointer` overload.
    public static func parse(_ bytes: [UInt8]) throws(RTCPParseError) -> RTCPHeader {
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(RTCPParseError) in try parse(raw) }
        }
        return try result.get()
    }
}
