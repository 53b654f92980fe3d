@_spi(SRTPInternals) import SRTPFormat

extension SRTPSession {
    /// Protects an RTP packet, returning the SRTP packet (``rtpOverhead`` bytes longer). A convenience for tests
    /// and clients; allocates.
    public func protect(_ packet: [UInt8]) throws(SRTPError) -> [UInt8] {
        try SRTPArrayTransform.run(packet, extra: rtpOverhead) { (pointer, length, capacity) throws(SRTPError) in
            try protect(pointer, length: length, capacity: capacity)
        }
    }

    /// Unprotects an SRTP packet, returning the RTP packet. A convenience for tests and clients;
    /// allocates.
    public func unprotect(_ packet: [UInt8]) throws(SRTPError) -> [UInt8] {
        try SRTPArrayTransform.run(packet, extra: 0) { (pointer, length, _) throws(SRTPError) in
            try unprotect(pointer, length: length)
        }
    }

    /// Protects a (compound) RTCP packet, returning the SRTCP packet (``rtcpOverhead`` bytes longer). A
    /// convenience for tests and clients; allocates.
    public func protectRTCP(_ packet: [UInt8]) throws(SRTPError) -> [UInt8] {
        try SRTPArrayTransform.run(packet, extra: rtcpOverhead) { (pointer, length, capacity) throws(SRTPError) in
            try protectRTCP(pointer, length: length, capacity: capacity)
        }
    }

    /// Unprotects an SRTCP packet, returning the RTCP packet. A convenience for tests and clients;
    /// allocates.
    public func unprotectRTCP(_ packet: [UInt8]) throws(SRTPError) -> [UInt8] {
        try SRTPArrayTransform.run(packet, extra: 0) { (pointer, length, _) throws(SRTPError) in
            try unprotectRTCP(pointer, length: length)
        }
    }
}
