/// Bounds-checked reads of the few RTP and RTCP header fields SRTP needs, and where SRTCP puts its
/// trailer. Never reads outside the given length, whatever the bytes say.
@_spi(SRTPInternals) public enum SRTPPacketLayout {
    // Computed constants, not `static let`s: read from another module, those would go through a
    // lazy-initialisation check on every packet.

    /// Smallest RTP header (no CSRC, no extension).
    @inlinable public static var rtpFixedHeader: Int { 12 }
    /// The RTCP header SRTCP leaves in the clear: V/P/RC, PT, length, SSRC.
    @inlinable public static var rtcpHeader: Int { 8 }
    /// The SRTCP word after the RTCP packet: the E flag (top bit) and the 31-bit SRTCP index.
    @inlinable public static var srtcpIndexLength: Int { 4 }

    /// What SRTP reads from an RTP header.
    public struct RTPHeader {
        /// The header's length including the CSRC list and the header extension.
        public var length: Int
        /// The sequence number.
        public var sequence: UInt16
        /// The synchronisation source.
        public var ssrc: UInt32

        @inlinable
        public init(length: Int, sequence: UInt16, ssrc: UInt32) {
            self.length = length
            self.sequence = sequence
            self.ssrc = ssrc
        }
    }

    /// The header of the RTP packet at `packet`, or nil if it is not RTP version 2 or its header does
    /// not fit in `available` bytes.
    @inlinable @inline(__always)
    public static func rtpHeader(_ packet: UnsafeRawPointer, available: Int) -> RTPHeader? {
        guard let length = rtpHeaderLength(packet, available: available) else { return nil }
        return RTPHeader(length: length, sequence: readUInt16(packet, at: 2), ssrc: readUInt32(packet, at: 8))
    }

    /// Length of the RTP header at `packet` including the CSRC list and the header extension, or nil
    /// if it is not RTP version 2 or does not fit in `available` bytes.
    @inlinable @inline(__always)
    public static func rtpHeaderLength(_ packet: UnsafeRawPointer, available: Int) -> Int? {
        guard available >= rtpFixedHeader else { return nil }
        let first = packet.load(as: UInt8.self)
        guard first >> 6 == 2 else { return nil }
        var length = rtpFixedHeader + 4 * Int(first & 0x0F)
        if first & 0x10 != 0 {
            guard length + 4 <= available else { return nil }
            length += 4 + 4 * Int(readUInt16(packet, at: length + 2))
        }
        return length <= available ? length : nil
    }

    /// Where the E flag + SRTCP index word starts in an SRTCP packet of `length` bytes: after the
    /// RTCP packet for AES-CM (header ‖ body ‖ E+index ‖ tag), at the very end for GCM (header ‖ body
    /// ‖ tag ‖ E+index, RFC 7714 §17). The caller has checked that `length` holds the trailer.
    @inlinable @inline(__always)
    public static func srtcpIndexOffset(length: Int, profile: SRTPProfile) -> Int {
        switch profile {
        case .aesCM128HMACSHA1_80: length - profile.tagLength - srtcpIndexLength
        case .aeadAES128GCM: length - srtcpIndexLength
        }
    }

    /// The E flag + index word for SRTCP `index`, sent encrypted (E = 1).
    @inlinable @inline(__always)
    public static func srtcpIndexWord(_ index: UInt32) -> UInt32 { 0x8000_0000 | index }

    /// Whether an E flag + index word says the packet is encrypted, and its 31-bit index.
    @inlinable @inline(__always)
    public static func srtcpIndex(_ word: UInt32) -> (encrypted: Bool, index: UInt32) {
        (word & 0x8000_0000 != 0, word & 0x7FFF_FFFF)
    }

    /// The big-endian 16-bit value at `offset`.
    @inlinable @inline(__always)
    public static func readUInt16(_ packet: UnsafeRawPointer, at offset: Int) -> UInt16 {
        UInt16(packet.load(fromByteOffset: offset, as: UInt8.self)) << 8
            | UInt16(packet.load(fromByteOffset: offset + 1, as: UInt8.self))
    }

    /// The big-endian 32-bit value at `offset`.
    @inlinable @inline(__always)
    public static func readUInt32(_ packet: UnsafeRawPointer, at offset: Int) -> UInt32 {
        UInt32(readUInt16(packet, at: offset)) << 16 | UInt32(readUInt16(packet, at: offset + 2))
    }

    /// Writes `value` big-endian at `offset`.
    @inlinable @inline(__always)
    public static func writeUInt32(_ value: UInt32, to packet: UnsafeMutableRawPointer, at offset: Int) {
        packet.storeBytes(of: value.bigEndian, toByteOffset: offset, as: UInt32.self)
    }
}
