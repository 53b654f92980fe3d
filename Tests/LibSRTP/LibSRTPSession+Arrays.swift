public import SRTP
@_spi(SRTPInternals) import SRTPFormat

extension LibSRTPSession {
    /// Protects an RTP packet, returning the SRTP packet.
    public func protect(_ packet: [UInt8]) throws(SRTPError) -> [UInt8] {
        try SRTPArrayTransform.run(packet, extra: Self.rtpTrailerCapacity) {
            (pointer, length, capacity) throws(SRTPError) in
            try protect(pointer, length: length, capacity: capacity)
        }
    }

    /// Unprotects an SRTP packet, returning the RTP packet.
    public func unprotect(_ packet: [UInt8]) throws(SRTPError) -> [UInt8] {
        try SRTPArrayTransform.run(packet, extra: 0) { (pointer, length, _) throws(SRTPError) in
            try unprotect(pointer, length: length)
        }
    }

    /// Protects a (compound) RTCP packet, returning the SRTCP packet.
    public func protectRTCP(_ packet: [UInt8]) throws(SRTPError) -> [UInt8] {
        try SRTPArrayTransform.run(packet, extra: Self.rtcpTrailerCapacity) {
            (pointer, length, capacity) throws(SRTPError) in
            try protectRTCP(pointer, length: length, capacity: capacity)
        }
    }

    /// Unprotects an SRTCP packet, returning the RTCP packet.
    public func unprotectRTCP(_ packet: [UInt8]) throws(SRTPError) -> [UInt8] {
        try SRTPArrayTransform.run(packet, extra: 0) { (pointer, length, _) throws(SRTPError) in
            try unprotectRTCP(pointer, length: length)
        }
    }
}
