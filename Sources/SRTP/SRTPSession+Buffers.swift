extension SRTPSession {
    /// Protects the RTP packet in the first `length` bytes of `buffer` in place; `buffer.count` is
    /// the capacity. Returns the SRTP length. See ``protect(_:length:capacity:)``.
    @inlinable
    public func protect(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        guard let base = buffer.baseAddress else { throw .badParam }
        return try protect(base, length: length, capacity: buffer.count)
    }

    /// Unprotects the SRTP packet in the first `length` bytes of `buffer` in place. Returns the RTP
    /// length. See ``unprotect(_:length:)``.
    @inlinable
    public func unprotect(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        guard let base = buffer.baseAddress, length <= buffer.count else { throw .badParam }
        return try unprotect(base, length: length)
    }

    /// Protects the RTCP packet in the first `length` bytes of `buffer` in place; `buffer.count` is
    /// the capacity. See ``protectRTCP(_:length:capacity:)``.
    @inlinable
    public func protectRTCP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        guard let base = buffer.baseAddress else { throw .badParam }
        return try protectRTCP(base, length: length, capacity: buffer.count)
    }

    /// Unprotects the SRTCP packet in the first `length` bytes of `buffer` in place. See
    /// ``unprotectRTCP(_:length:)``.
    @inlinable
    public func unprotectRTCP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        guard let base = buffer.baseAddress, length <= buffer.count else { throw .badParam }
        return try unprotectRTCP(base, length: length)
    }
}
