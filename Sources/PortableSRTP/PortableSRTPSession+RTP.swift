internal import Foundation
@_spi(SRTPInternals) import SRTPFormat

extension PortableSRTPSession {
    /// Encrypts and authenticates an RTP packet, returning the SRTP packet (``rtpOverhead`` bytes
    /// longer). The header, its CSRC list and header extension stay in the clear. Fails with
    /// `wrongDirection` on an inbound session, `badParam` for a packet that is not RTP version 2 or
    /// whose header does not fit, `unknownSSRC` for an SSRC a specific session does not take, and
    /// `replayFail` for a sequence number already protected (or older than the replay window).
    public func protect(_ packet: [UInt8]) throws(SRTPError) -> [UInt8] {
        guard case .outbound = direction else { throw .wrongDirection }
        let header = try Self.rtpHeader(packet, available: packet.count)
        let index = try streams.nextRTPIndex(ssrc: header.ssrc, sequence: header.sequence, allowRepeat: false)
        let roc = SRTPPacketIndex.rolloverCounter(index)
        let clear = packet[..<header.length]
        let payload = packet[header.length...]
        var output = [UInt8]()
        output.reserveCapacity(packet.count + rtpOverhead)
        output += clear
        if let authenticator = rtpKeys.authenticator {
            let iv = SRTPNonce.counter(salt: rtpKeys.salt, ssrc: header.ssrc, index: index)
            output += try PortableCounterMode.apply(payload, key: rtpKeys.cipherKey, iv: iv)
            output += authenticator.tag(output, roc: roc, count: profile.tagLength)
        } else {
            let iv = SRTPNonce.gcmRTP(salt: rtpKeys.salt, ssrc: header.ssrc, roc: roc, sequence: header.sequence)
            let sealed = try PortableGCM.seal(payload, key: rtpKeys.cipherKey, iv: iv, aad: clear)
            output += sealed.ciphertext
            output += sealed.tag
        }
        return output
    }

    /// Verifies and decrypts an SRTP packet, returning the RTP packet (``rtpOverhead`` bytes shorter).
    /// Fails with `authFail` for a bad tag, `replayFail` for a repeated or too old packet, `badParam`
    /// for a malformed or short one, `unknownSSRC` and `wrongDirection` as ``protect(_:)`` does. The
    /// rollover counter and replay window change only when a packet authenticates.
    public func unprotect(_ packet: [UInt8]) throws(SRTPError) -> [UInt8] {
        guard case .inbound = direction else { throw .wrongDirection }
        let protectedLength = packet.count - profile.tagLength
        let header = try Self.rtpHeader(packet, available: protectedLength)
        let index = try streams.checkRTPIndex(ssrc: header.ssrc, sequence: header.sequence)
        let roc = SRTPPacketIndex.rolloverCounter(index)
        let clear = packet[..<header.length]
        let payload = packet[header.length..<protectedLength]
        let tag = packet[protectedLength...]
        var output = Array(clear)
        output.reserveCapacity(protectedLength)
        if let authenticator = rtpKeys.authenticator {
            guard authenticator.verify(packet[..<protectedLength], roc: roc, received: tag) else { throw .authFail }
            let iv = SRTPNonce.counter(salt: rtpKeys.salt, ssrc: header.ssrc, index: index)
            output += try PortableCounterMode.apply(payload, key: rtpKeys.cipherKey, iv: iv)
        } else {
            let iv = SRTPNonce.gcmRTP(salt: rtpKeys.salt, ssrc: header.ssrc, roc: roc, sequence: header.sequence)
            output += try PortableGCM.open(payload, tag: tag, key: rtpKeys.cipherKey, iv: iv, aad: clear)
        }
        try streams.acceptRTPIndex(ssrc: header.ssrc, index: index)
        return output
    }

    /// The RTP header in the first `available` bytes of `packet`; `badParam` if it is not RTP version 2
    /// or does not fit.
    private static func rtpHeader(_ packet: [UInt8], available: Int) throws(SRTPError) -> SRTPPacketLayout.RTPHeader {
        let header = packet.withUnsafeBytes { raw in
            raw.baseAddress.flatMap { SRTPPacketLayout.rtpHeader($0, available: min(available, raw.count)) }
        }
        guard let header else { throw .badParam }
        return header
    }
}
