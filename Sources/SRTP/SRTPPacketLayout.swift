/// Bounds-checked reads of the few RTP and RTCP header fields SRTP needs. Never reads outside the
/// given length, whatever the bytes say.
enum SRTPPacketLayout {
    /// Smallest RTP header (no CSRC, no extension).
    static let rtpFixedHeader = 12
    /// The RTCP header SRTCP leaves in the clear: V/P/RC, PT, length, SSRC.
    static let rtcpHeader = 8

    /// Length of the RTP header at `packet` including the CSRC list and the header extension, or nil
    /// if it is not RTP version 2 or does not fit in `available` bytes.
    static func rtpHeaderLength(_ packet: UnsafeRawPointer, available: Int) -> Int? {
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

    /// The big-endian 16-bit value at `offset`.
    @inline(__always)
    static func readUInt16(_ packet: UnsafeRawPointer, at offset: Int) -> UInt16 {
        UInt16(packet.load(fromByteOffset: offset, as: UInt8.self)) << 8
            | UInt16(packet.load(fromByteOffset: offset + 1, as: UInt8.self))
    }

    /// The big-endian 32-bit value at `offset`.
    @inline(__always)
    static func readUInt32(_ packet: UnsafeRawPointer, at offset: Int) -> UInt32 {
        UInt32(readUInt16(packet, at: offset)) << 16 | UInt32(readUInt16(packet, at: offset + 2))
    }

    /// Writes `value` big-endian at `offset`.
    @inline(__always)
    static func writeUInt32(_ value: UInt32, to packet: UnsafeMutableRawPointer, at offset: Int) {
        packet.storeBytes(of: value.bigEndian, toByteOffset: offset, as: UInt32.self)
    }
}
