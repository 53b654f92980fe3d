extension RTPHeader {
    /// The header length ``write(into:marker:payloadType:sequenceNumber:timestamp:ssrc:csrc:)``
    /// produces: 12, or 16 with a CSRC.
    @inlinable
    public static func writtenLength(hasCSRC: Bool) -> Int {
        hasCSRC ? fixedLength + 4 : fixedLength
    }

    /// Writes an RTP header at the start of `buffer`: V=2, no padding, no extension, the given
    /// marker, payload type, sequence number, timestamp and SSRC, and, if `csrc` is given, a
    /// one-entry CSRC list (a relay lists the speaker's SSRC there, RFC 3550 §7.1).
    ///
    /// Returns the bytes written (12 or 16); the payload goes right after. Does not allocate.
    /// Throws `invalidPayloadType` for a payload type above 127 or in 64–95 (RFC 5761 §4).
    @inlinable
    public static func write(
        into buffer: UnsafeMutableRawBufferPointer,
        marker: Bool,
        payloadType: UInt8,
        sequenceNumber: UInt16,
        timestamp: UInt32,
        ssrc: UInt32,
        csrc: UInt32? = nil
    ) throws(RTPWriteError) -> Int {
        guard payloadType < 128, !(64...95).contains(payloadType) else {
            throw .invalidPayloadType(payloadType)
        }
        let length = writtenLength(hasCSRC: csrc != nil)
        guard buffer.count >= length else { throw .bufferTooSmall(needed: length, available: buffer.count) }
        buffer[0] = version << 6 | (csrc == nil ? 0 : 1)
        buffer[1] = (marker ? 0x80 : 0) | payloadType
        buffer.storeBytes(of: sequenceNumber.bigEndian, toByteOffset: 2, as: UInt16.self)
        buffer.storeBytes(of: timestamp.bigEndian, toByteOffset: 4, as: UInt32.self)
        buffer.storeBytes(of: ssrc.bigEndian, toByteOffset: 8, as: UInt32.self)
        if let csrc {
            buffer.storeBytes(of: csrc.bigEndian, toByteOffset: 12, as: UInt32.self)
        }
        return length
    }

    /// Writes a header (as ``write(into:marker:payloadType:sequenceNumber:timestamp:ssrc:csrc:)``)
    /// followed by a copy of `payload`, returning the packet length. Does not allocate.
    ///
    /// This is the relay's per-listener path: parse the speaker's packet, then write a fresh header
    /// and the speaker's payload (``payloadRange(packetLength:)``, so the speaker's extension and
    /// padding are dropped) into the outgoing buffer.
    @inlinable
    public static func writePacket(
        into buffer: UnsafeMutableRawBufferPointer,
        marker: Bool,
        payloadType: UInt8,
        sequenceNumber: UInt16,
        timestamp: UInt32,
        ssrc: UInt32,
        csrc: UInt32? = nil,
        payload: UnsafeRawBufferPointer
    ) throws(RTPWriteError) -> Int {
        let total = writtenLength(hasCSRC: csrc != nil) + payload.count
        guard buffer.count >= total else { throw .bufferTooSmall(needed: total, available: buffer.count) }
        let headerLength = try write(
            into: buffer, marker: marker, payloadType: payloadType,
            sequenceNumber: sequenceNumber, timestamp: timestamp, ssrc: ssrc, csrc: csrc
        )
        if let source = payload.baseAddress, payload.count > 0 {
            (buffer.baseAddress! + headerLength).copyMemory(from: source, byteCount: payload.count)
        }
        return total
    }

    /// Builds a whole RTP packet (header as ``write(into:marker:payloadType:sequenceNumber:timestamp:ssrc:csrc:)``,
    /// then `payload`) as a new array. A convenience for tests and clients; allocates.
    public static func makePacket(
        marker: Bool = false,
        payloadType: UInt8,
        sequenceNumber: UInt16,
        timestamp: UInt32,
        ssrc: UInt32,
        csrc: UInt32? = nil,
        payload: [UInt8]
    ) throws(RTPWriteError) -> [UInt8] {
        var packet = [UInt8](repeating: 0, count: writtenLength(hasCSRC: csrc != nil) + payload.count)
        let result = packet.withUnsafeMutableBytes { out in
            payload.withUnsafeBytes { body in
                Result { () throws(RTPWriteError) in
                    try writePacket(
                        into: out, marker: marker, payloadType: payloadType,
                        sequenceNumber: sequenceNumber, timestamp: timestamp, ssrc: ssrc,
                        csrc: csrc, payload: body
                    )
                }
            }
        }
        _ = try result.get()
        return packet
    }
}
