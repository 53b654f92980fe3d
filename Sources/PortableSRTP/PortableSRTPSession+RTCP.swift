internal import Foundation
@_spi(SRTPInternals) import SRTPFormat

extension PortableSRTPSession {
    /// Encrypts and authenticates a (compound) RTCP packet, returning the SRTCP packet
    /// (``rtcpOverhead`` bytes longer: the E flag + 31-bit SRTCP index and the tag; RFC 7714's order
    /// for GCM). The first 8 bytes (header and sender SSRC) stay in the clear. Fails with `badParam`
    /// for a packet shorter than 8 bytes, `indexExhausted` after 2^31 − 1 packets, and
    /// `wrongDirection` or `unknownSSRC` as ``protect(_:)`` does.
    public func protectRTCP(_ packet: [UInt8]) throws(SRTPError) -> [UInt8] {
        guard case .outbound = direction else { throw .wrongDirection }
        guard packet.count >= SRTPPacketLayout.rtcpHeader else { throw .badParam }
        let ssrc = Self.readUInt32(packet, at: 4)
        let index = try streams.nextRTCPIndex(ssrc: ssrc)
        let trailer = withUnsafeBytes(of: SRTPPacketLayout.srtcpIndexWord(index).bigEndian) { Array($0) }
        let clear = packet[..<SRTPPacketLayout.rtcpHeader]
        let body = packet[SRTPPacketLayout.rtcpHeader...]
        var output = Array(clear)
        output.reserveCapacity(packet.count + rtcpOverhead)
        if let authenticator = rtcpKeys.authenticator {
            let iv = SRTPNonce.counter(salt: rtcpKeys.salt, ssrc: ssrc, index: UInt64(index))
            output += try PortableCounterMode.apply(body, key: rtcpKeys.cipherKey, iv: iv)
            output += trailer
            output += authenticator.tag(output, roc: nil, count: profile.tagLength)
        } else {
            let iv = SRTPNonce.gcmRTCP(salt: rtcpKeys.salt, ssrc: ssrc, index: index)
            let sealed = try PortableGCM.seal(body, key: rtcpKeys.cipherKey, iv: iv, aad: clear + trailer)
            output += sealed.ciphertext
            output += sealed.tag
            output += trailer
        }
        return output
    }

    /// Verifies and decrypts an SRTCP packet, returning the RTCP packet. Accepts packets sent
    /// unencrypted (E = 0) too, which are only authenticated. Errors as for ``unprotect(_:)``.
    public func unprotectRTCP(_ packet: [UInt8]) throws(SRTPError) -> [UInt8] {
        guard case .inbound = direction else { throw .wrongDirection }
        let length = packet.count
        guard length >= SRTPPacketLayout.rtcpHeader + rtcpOverhead else { throw .badParam }
        let rtcpLength = length - rtcpOverhead
        let word = Self.readUInt32(packet, at: SRTPPacketLayout.srtcpIndexOffset(length: length, profile: profile))
        let (encrypted, index) = SRTPPacketLayout.srtcpIndex(word)
        let ssrc = Self.readUInt32(packet, at: 4)
        try streams.checkRTCPIndex(ssrc: ssrc, index: index)
        let clear = packet[..<SRTPPacketLayout.rtcpHeader]
        let body = packet[SRTPPacketLayout.rtcpHeader..<rtcpLength]
        var output = Array(clear)
        output.reserveCapacity(rtcpLength)
        if let authenticator = rtcpKeys.authenticator {
            let authenticated = rtcpLength + SRTPPacketLayout.srtcpIndexLength
            guard authenticator.verify(packet[..<authenticated], roc: nil, received: packet[authenticated...]) else {
                throw .authFail
            }
            if encrypted {
                let iv = SRTPNonce.counter(salt: rtcpKeys.salt, ssrc: ssrc, index: UInt64(index))
                output += try PortableCounterMode.apply(body, key: rtcpKeys.cipherKey, iv: iv)
            } else {
                output += body
            }
        } else {
            let iv = SRTPNonce.gcmRTCP(salt: rtcpKeys.salt, ssrc: ssrc, index: index)
            let tag = packet[rtcpLength..<(length - SRTPPacketLayout.srtcpIndexLength)]
            let trailer = packet[(length - SRTPPacketLayout.srtcpIndexLength)...]
            if encrypted {
                output += try PortableGCM.open(body, tag: tag, key: rtcpKeys.cipherKey, iv: iv, aad: clear + trailer)
            } else {
                // E = 0: the whole RTCP packet is authenticated data, nothing is encrypted.
                _ = try PortableGCM.open(
                    [UInt8](), tag: tag, key: rtcpKeys.cipherKey, iv: iv, aad: packet[..<rtcpLength] + trailer)
                output += body
            }
        }
        try streams.acceptRTCPIndex(ssrc: ssrc, index: index)
        return output
    }

    /// The big-endian 32-bit value at `offset` of `packet`, which the caller has checked is long enough.
    private static func readUInt32(_ packet: [UInt8], at offset: Int) -> UInt32 {
        packet.withUnsafeBytes { SRTPPacketLayout.readUInt32($0.baseAddress!, at: offset) }
    }
}
