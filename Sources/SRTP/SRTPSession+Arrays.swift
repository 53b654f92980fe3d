extension SRTPSession {
    /// Protects an RTP packet, returning the SRTP packet (``rtpOverhead`` bytes longer). A convenience for tests
    /// and clients; allocates.
    public func protect(_ packet: [UInt8]) throws(SRTPError) -> [UInt8] {
        try Self.process(packet, extra: rtpOverhead) { (pointer, length, capacity) throws(SRTPError) in
            try protect(pointer, length: length, capacity: capacity)
        }
    }

    /// Unprotects an SRTP packet, returning the RTP packet. A convenience for tests and clients;
    /// allocates.
    public func unprotect(_ packet: [UInt8]) throws(SRTPError) -> [UInt8] {
        try Self.process(packet, extra: 0) { (pointer, length, _) throws(SRTPError) in
            try unprotect(pointer, length: length)
        }
    }

    /// Protects a (compound) RTCP packet, returning the SRTCP packet (``rtcpOverhead`` bytes longer). A
    /// convenience for tests and clients; allocates.
    public func protectRTCP(_ packet: [UInt8]) throws(SRTPError) -> [UInt8] {
        try Self.process(packet, extra: rtcpOverhead) { (pointer, length, capacity) throws(SRTPError) in
            try protectRTCP(pointer, length: length, capacity: capacity)
        }
    }

    /// Unprotects an SRTCP packet, returning the RTCP packet. A convenience for tests and clients;
    /// allocates.
    public func unprotectRTCP(_ packet: [UInt8]) throws(SRTPError) -> [UInt8] {
        try Self.process(packet, extra: 0) { (pointer, length, _) throws(SRTPError) in
            try unprotectRTCP(pointer, length: length)
        }
    }

    /// Copies `packet` into a buffer with `extra` bytes of tail room, runs `operation` in place and
    /// trims the result to the length it returns.
    private static func process(
        _ packet: [UInt8],
        extra: Int,
        _ operation: (UnsafeMutableRawPointer, Int, Int) throws(SRTPError) -> Int
    ) throws(SRTPError) -> [UInt8] {
        var buffer = packet
        buffer.append(contentsOf: repeatElement(0, count: max(extra, 1)))
        let result = buffer.withUnsafeMutableBytes { raw in
            Result { () throws(SRTPError) in try operation(raw.baseAddress!, packet.count, raw.count) }
        }
        let length = try result.get()
        buffer.removeSubrange(length...)
        return buffer
    }
}
