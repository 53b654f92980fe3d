extension RTPHeader {
    /// Rewrites the sequence number, timestamp, SSRC and (unless `marker` is nil) the marker bit of
    /// the RTP packet in `packet`, in place; everything else, including the payload type, CSRCs,
    /// extension, padding and payload, is kept. This is how a relay munges a speaker's packet into
    /// a listener's continuous stream. Does not allocate.
    ///
    /// Checks only what it touches: at least 12 bytes (`tooShort`) and V = 2 (`badVersion`).
    @inlinable
    public static func rewrite(
        _ packet: UnsafeMutableRawBufferPointer,
        sequenceNumber: UInt16,
        timestamp: UInt32,
        ssrc: UInt32,
        marker: Bool? = nil
    ) throws(RTPParseError) {
        guard packet.count >= fixedLength else { throw .tooShort }
        guard packet[0] >> 6 == version else { throw .badVersion }
        if let marker {
            packet[1] = (packet[1] & 0x7F) | (marker ? 0x80 : 0)
        }
        packet.storeBytes(of: sequenceNumber.bigEndian, toByteOffset: 2, as: UInt16.self)
        packet.storeBytes(of: timestamp.bigEndian, toByteOffset: 4, as: UInt32.self)
        packet.storeBytes(of: ssrc.bigEndian, toByteOffset: 8, as: UInt32.self)
    }

    /// Rewrites sequence number, timestamp, SSRC and optionally the marker of `packet` in place.
    /// See the `UnsafeMutableRawBufferPointer` overload.
    public static func rewrite(
        _ packet: inout [UInt8],
        sequenceNumber: UInt16,
        timestamp: UInt32,
        ssrc: UInt32,
        marker: Bool? = nil
    ) throws(RTPParseError) {
        let result = packet.withUnsafeMutableBytes { raw in
            Result { () throws(RTPParseError) in
                try rewrite(raw, sequenceNumber: sequenceNumber, timestamp: timestamp, ssrc: ssrc, marker: marker)
            }
        }
        try result.get()
    }
}
