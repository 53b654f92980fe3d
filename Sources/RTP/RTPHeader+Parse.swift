extension RTPHeader {
    /// Parses and validates the RTP header at the start of `bytes` (the whole datagram).
    ///
    /// Checks, in order: at least 12 bytes (`tooShort`), V = 2 (`badVersion`), the CSRC list fits
    /// (`csrcOverrun`), the extension fits (`extensionOverrun`), and, if P is set and
    /// `validatingPadding`, that the last byte is a pad count in 1 ... bytes after the header
    /// (`badPadding`).
    ///
    /// Pass `validatingPadding: false` for an SRTP packet that is still protected: its padding is
    /// encrypted and its last bytes are the authentication tag. ``paddingLength`` is then 0; parse
    /// again after `unprotect` to learn the payload range.
    ///
    /// Does not allocate.
    @inlinable
    public static func parse(
        _ bytes: UnsafeRawBufferPointer,
        validatingPadding: Bool = true
    ) throws(RTPParseError) -> RTPHeader {
        let count = bytes.count
        guard count >= fixedLength else { throw .tooShort }
        let b0 = bytes[0]
        guard b0 >> 6 == version else { throw .badVersion }
        let padding = b0 & 0x20 != 0
        let hasExtension = b0 & 0x10 != 0
        let csrcCount = Int(b0 & 0x0F)
        var offset = fixedLength + 4 * csrcCount
        guard offset <= count else { throw .csrcOverrun }

        var extensionProfile: UInt16 = 0
        var extensionLength = 0
        if hasExtension {
            guard offset + 4 <= count else { throw .extensionOverrun }
            extensionProfile = UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
            extensionLength = 4 * (Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3]))
            offset += 4 + extensionLength
            guard offset <= count else { throw .extensionOverrun }
        }

        var paddingLength = 0
        if padding && validatingPadding {
            guard count > offset else { throw .badPadding }
            paddingLength = Int(bytes[count - 1])
            guard paddingLength >= 1, paddingLength <= count - offset else { throw .badPadding }
        }

        let b1 = bytes[1]
        return RTPHeader(
            padding: padding,
            hasExtension: hasExtension,
            csrcCount: csrcCount,
            marker: b1 & 0x80 != 0,
            payloadType: b1 & 0x7F,
            sequenceNumber: UInt16(bytes[2]) << 8 | UInt16(bytes[3]),
            timestamp: UInt32(bytes[4]) << 24 | UInt32(bytes[5]) << 16 | UInt32(bytes[6]) << 8 | UInt32(bytes[7]),
            ssrc: UInt32(bytes[8]) << 24 | UInt32(bytes[9]) << 16 | UInt32(bytes[10]) << 8 | UInt32(bytes[11]),
            extensionProfile: extensionProfile,
            extensionLength: extensionLength,
            paddingLength: paddingLength
        )
    }

    /// Parses and validates the RTP header at the start of `bytes`. See ``parse(_:validatingPadding:)``.
    public static func parse(_ bytes: [UInt8], validatingPadding: Bool = true) throws(RTPParseError) -> RTPHeader {
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(RTPParseError) in try parse(raw, validatingPadding: validatingPadding) }
        }
        return try result.get()
    }

    /// Whether a datagram on a muxed RTP/RTCP port is RTCP (RFC 5761 §4): its second byte is in
    /// 192 ... 223 (RTCP packet types 192–223, which is where RTP payload types 64–95 with the
    /// marker bit would land; that is why RTP payload types must avoid 64–95). Needs two bytes;
    /// shorter input is not RTCP. Does not validate anything else.
    @inlinable
    public static func isRTCP(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.count >= 2 && (192...223).contains(bytes[1])
    }

    /// Whether a datagram on a muxed RTP/RTCP port is RTCP. See the `UnsafeRawBufferPointer` overload.
    public static func isRTCP(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 2 && (192...223).contains(bytes[1])
    }
}
