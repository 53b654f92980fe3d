@_spi(SRTPInternals) import SRTPFormat

extension SRTPSession {
    /// Encrypts and authenticates the RTP packet of `length` bytes at `buffer` in place, appending
    /// the tag; returns the new length (`length +` ``rtpOverhead``). `capacity` (the bytes writable at
    /// `buffer`) must be at least that. The header, its CSRC list and header extension stay in the
    /// clear. Does not allocate (for a ``SSRCSelection/specific(_:)`` session).
    public func protect(_ buffer: UnsafeMutableRawPointer, length: Int, capacity: Int) throws(SRTPError) -> Int {
        guard case .outbound = direction else { throw .wrongDirection }
        let tagLength = profile.tagLength
        try Self.checkCapacity(length: length, capacity: capacity, overhead: tagLength)
        guard let header = SRTPPacketLayout.rtpHeader(buffer, available: length) else { throw .badParam }
        let (headerLength, sequence, ssrc) = (header.length, header.sequence, header.ssrc)
        let index = try streams.nextRTPIndex(ssrc: ssrc, sequence: sequence, allowRepeat: allowRepeatTransmit)
        let roc = SRTPPacketIndex.rolloverCounter(index)
        let payload = buffer + headerLength
        let payloadLength = length - headerLength
        if let authenticator = rtpKeys.authenticator {
            var iv = SRTPNonce.counter(salt: rtpKeys.salt.pointee, ssrc: ssrc, index: index)
            let encrypted = withUnsafeBytes(of: &iv) {
                rtpKeys.cipher.applyKeystream(iv: $0.baseAddress!, data: payload, count: payloadLength)
            }
            guard encrypted else { throw .cryptoFailure("AES-CM") }
            authenticator.tag(buffer, length: length, roc: roc, into: buffer + length, count: tagLength)
        } else {
            var iv = SRTPNonce.gcmRTP(salt: rtpKeys.salt.pointee, ssrc: ssrc, roc: roc, sequence: sequence)
            let sealed = withUnsafeBytes(of: &iv) {
                rtpKeys.cipher.seal(
                    iv: $0.baseAddress!, aad: UnsafeRawBufferPointer(start: buffer, count: headerLength),
                    aadTail: UnsafeRawBufferPointer(start: nil, count: 0),
                    data: payload, count: payloadLength, tag: buffer + length
                )
            }
            guard sealed else { throw .cryptoFailure("AES-GCM seal") }
        }
        return length + tagLength
    }

    /// Verifies and decrypts the SRTP packet of `length` bytes at `buffer` in place; returns the RTP
    /// packet's length (`length -` ``rtpOverhead``). Fails with `authFail` for a bad tag, `replayFail`
    /// for a repeated or too old packet, `badParam` for a malformed one; the rollover counter and
    /// replay window change only when a packet authenticates. On failure the buffer content is
    /// unspecified (GCM decrypts before it knows the tag is bad). Does not allocate (except a new
    /// stream in an ``SSRCSelection/any`` session).
    public func unprotect(_ buffer: UnsafeMutableRawPointer, length: Int) throws(SRTPError) -> Int {
        guard case .inbound = direction else { throw .wrongDirection }
        let tagLength = profile.tagLength
        guard length >= 0, length <= Int(Int32.max) else { throw .badParam }
        let protectedLength = length - tagLength
        guard let header = SRTPPacketLayout.rtpHeader(buffer, available: protectedLength) else { throw .badParam }
        let (headerLength, sequence, ssrc) = (header.length, header.sequence, header.ssrc)
        let index = try streams.checkRTPIndex(ssrc: ssrc, sequence: sequence)
        let roc = SRTPPacketIndex.rolloverCounter(index)
        let payload = buffer + headerLength
        let payloadLength = protectedLength - headerLength
        if let authenticator = rtpKeys.authenticator {
            guard
                authenticator.verify(
                    buffer, length: protectedLength, roc: roc, received: buffer + protectedLength,
                    count: tagLength)
            else { throw .authFail }
            var iv = SRTPNonce.counter(salt: rtpKeys.salt.pointee, ssrc: ssrc, index: index)
            let decrypted = withUnsafeBytes(of: &iv) {
                rtpKeys.cipher.applyKeystream(iv: $0.baseAddress!, data: payload, count: payloadLength)
            }
            guard decrypted else { throw .cryptoFailure("AES-CM") }
        } else {
            var iv = SRTPNonce.gcmRTP(salt: rtpKeys.salt.pointee, ssrc: ssrc, roc: roc, sequence: sequence)
            let opened = withUnsafeBytes(of: &iv) {
                rtpKeys.cipher.open(
                    iv: $0.baseAddress!, aad: UnsafeRawBufferPointer(start: buffer, count: headerLength),
                    aadTail: UnsafeRawBufferPointer(start: nil, count: 0),
                    data: payload, count: payloadLength, tag: buffer + protectedLength
                )
            }
            guard opened else { throw .authFail }
        }
        try streams.acceptRTPIndex(ssrc: ssrc, index: index)
        return protectedLength
    }
}
