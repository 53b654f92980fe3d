@_spi(SRTPInternals) import SRTPFormat

extension SRTPSession {
    /// Encrypts and authenticates the (compound) RTCP packet of `length` bytes at `buffer` in place,
    /// appending the E flag + 31-bit SRTCP index and the tag; returns the new length (`length +`
    /// ``rtcpOverhead``). `capacity` must be at least that. The first 8 bytes (header and sender
    /// SSRC) stay in the clear.
    public func protectRTCP(_ buffer: UnsafeMutableRawPointer, length: Int, capacity: Int) throws(SRTPError) -> Int {
        guard case .outbound = direction else { throw .wrongDirection }
        let tagLength = profile.tagLength
        try Self.checkCapacity(length: length, capacity: capacity, overhead: profile.rtcpOverhead)
        guard length >= SRTPPacketLayout.rtcpHeader else { throw .badParam }
        let ssrc = SRTPPacketLayout.readUInt32(buffer, at: 4)
        let index = try streams.nextRTCPIndex(ssrc: ssrc)
        let trailer = SRTPPacketLayout.srtcpIndexWord(index)  // E = 1: encrypted
        let body = buffer + SRTPPacketLayout.rtcpHeader
        let bodyLength = length - SRTPPacketLayout.rtcpHeader
        if let authenticator = rtcpKeys.authenticator {
            var iv = SRTPNonce.counter(salt: rtcpKeys.salt.pointee, ssrc: ssrc, index: UInt64(index))
            let encrypted = withUnsafeBytes(of: &iv) {
                rtcpKeys.cipher.applyKeystream(iv: $0.baseAddress!, data: body, count: bodyLength)
            }
            guard encrypted else { throw .cryptoFailure("AES-CM") }
            SRTPPacketLayout.writeUInt32(trailer, to: buffer, at: length)
            authenticator.tag(buffer, length: length + 4, roc: nil, into: buffer + length + 4, count: tagLength)
        } else {
            var word = trailer.bigEndian
            var iv = SRTPNonce.gcmRTCP(salt: rtcpKeys.salt.pointee, ssrc: ssrc, index: index)
            let sealed = withUnsafeBytes(of: &iv) { ivBytes in
                withUnsafeBytes(of: &word) { tail in
                    rtcpKeys.cipher.seal(
                        iv: ivBytes.baseAddress!,
                        aad: UnsafeRawBufferPointer(start: buffer, count: SRTPPacketLayout.rtcpHeader), aadTail: tail,
                        data: body, count: bodyLength, tag: buffer + length
                    )
                }
            }
            guard sealed else { throw .cryptoFailure("AES-GCM seal") }
            SRTPPacketLayout.writeUInt32(trailer, to: buffer, at: length + tagLength)
        }
        return length + tagLength + 4
    }

    /// Verifies and decrypts the SRTCP packet of `length` bytes at `buffer` in place; returns the
    /// RTCP length (`length -` ``rtcpOverhead``). Accepts packets sent unencrypted (E = 0) too, which
    /// are only authenticated. Errors as for ``unprotect(_:length:)``.
    public func unprotectRTCP(_ buffer: UnsafeMutableRawPointer, length: Int) throws(SRTPError) -> Int {
        guard case .inbound = direction else { throw .wrongDirection }
        let tagLength = profile.tagLength
        guard length >= SRTPPacketLayout.rtcpHeader + profile.rtcpOverhead, length <= Int(Int32.max) else {
            throw .badParam
        }
        let rtcpLength = length - profile.rtcpOverhead
        let trailerOffset = SRTPPacketLayout.srtcpIndexOffset(length: length, profile: profile)
        let (encrypted, index) = SRTPPacketLayout.srtcpIndex(SRTPPacketLayout.readUInt32(buffer, at: trailerOffset))
        let ssrc = SRTPPacketLayout.readUInt32(buffer, at: 4)
        try streams.checkRTCPIndex(ssrc: ssrc, index: index)
        let body = buffer + SRTPPacketLayout.rtcpHeader
        let bodyLength = rtcpLength - SRTPPacketLayout.rtcpHeader
        if let authenticator = rtcpKeys.authenticator {
            guard
                authenticator.verify(
                    buffer, length: rtcpLength + 4, roc: nil, received: buffer + rtcpLength + 4,
                    count: tagLength)
            else { throw .authFail }
            if encrypted {
                var iv = SRTPNonce.counter(salt: rtcpKeys.salt.pointee, ssrc: ssrc, index: UInt64(index))
                let decrypted = withUnsafeBytes(of: &iv) {
                    rtcpKeys.cipher.applyKeystream(iv: $0.baseAddress!, data: body, count: bodyLength)
                }
                guard decrypted else { throw .cryptoFailure("AES-CM") }
            }
        } else {
            var iv = SRTPNonce.gcmRTCP(salt: rtcpKeys.salt.pointee, ssrc: ssrc, index: index)
            let tail = UnsafeRawBufferPointer(start: buffer + length - 4, count: 4)
            let opened = withUnsafeBytes(of: &iv) { ivBytes in
                encrypted
                    ? rtcpKeys.cipher.open(
                        iv: ivBytes.baseAddress!,
                        aad: UnsafeRawBufferPointer(start: buffer, count: SRTPPacketLayout.rtcpHeader), aadTail: tail,
                        data: body, count: bodyLength, tag: buffer + rtcpLength)
                    : rtcpKeys.cipher.open(
                        iv: ivBytes.baseAddress!,
                        aad: UnsafeRawBufferPointer(start: buffer, count: rtcpLength), aadTail: tail,
                        data: body, count: 0, tag: buffer + rtcpLength)
            }
            guard opened else { throw .authFail }
        }
        try streams.acceptRTCPIndex(ssrc: ssrc, index: index)
        return rtcpLength
    }
}
