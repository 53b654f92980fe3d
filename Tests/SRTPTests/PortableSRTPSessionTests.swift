import PortableSRTP
import SRTP
import TestSupport
import Testing

/// PortableSRTPSession on its own: the errors and checks SRTPSession gives, with the same values.
@Suite("PortableSRTP sessions")
struct PortableSRTPSessionTests {
    private static let ssrc: UInt32 = 0x1234_5678

    private static func pair(
        _ profile: SRTPProfile, seed: UInt64, ssrc: SRTPSSRCSelection = .specific(ssrc), window: Int = 128
    ) throws -> (out: PortableSRTPSession, in: PortableSRTPSession) {
        let key = SRTPTestPackets.key(seed, profile)
        return (
            try PortableSRTPSession(direction: .outbound, key: key, ssrc: ssrc, profile: profile),
            try PortableSRTPSession(
                direction: .inbound, key: key, ssrc: ssrc, replayWindowSize: window, profile: profile)
        )
    }

    @Test("a flipped bit anywhere in the header, payload or tag fails authentication", arguments: SRTPProfile.allCases)
    func tamperedPacketFailsAuthentication(profile: SRTPProfile) throws {
        let (sender, receiver) = try Self.pair(profile, seed: 400)
        let plain = SRTPTestPackets.rtp(seq: 1, csrcs: [5], extensionWords: [6])
        let protected = try sender.protect(plain)
        for index in 1..<protected.count {
            var tampered = protected
            tampered[index] ^= 0x01
            let result = Result { () throws(SRTPError) in try receiver.unprotect(tampered) }
            // The SSRC (bytes 8–11) is checked before the tag, and so is the header's length: the high
            // byte of the extension length (byte 18) makes it 257 words, past the end.
            let expected: SRTPError = (8..<12).contains(index) ? .unknownSSRC : index == 18 ? .badParam : .authFail
            #expect(result == .failure(expected), "byte \(index)")
        }
        let report = try sender.protectRTCP(SRTPTestPackets.rtcp(ssrc: Self.ssrc))
        for index in [1, 9, report.count - 11, report.count - 1] {
            var tampered = report
            tampered[index] ^= 0x40
            #expect(throws: SRTPError.self, "RTCP byte \(index)") { try receiver.unprotectRTCP(tampered) }
        }
        #expect(try receiver.unprotect(protected) == plain)  // the genuine packet still goes through
        #expect(try receiver.unprotectRTCP(report) == SRTPTestPackets.rtcp(ssrc: Self.ssrc))
    }

    @Test("replays and packets older than the window are rejected", arguments: SRTPProfile.allCases)
    func replay(profile: SRTPProfile) throws {
        let (sender, narrow) = try Self.pair(profile, seed: 401, window: 64)
        let (_, wide) = try Self.pair(profile, seed: 401)
        let late = try sender.protect(SRTPTestPackets.rtp(seq: 1))
        for seq in UInt16(2)...100 {
            let packet = try sender.protect(SRTPTestPackets.rtp(seq: seq))
            #expect(try narrow.unprotect(packet) == SRTPTestPackets.rtp(seq: seq))
            _ = try wide.unprotect(packet)
            #expect(throws: SRTPError.replayFail) { try narrow.unprotect(packet) }
        }
        #expect(throws: SRTPError.replayFail) { try narrow.unprotect(late) }  // 99 late: outside 64
        #expect(try wide.unprotect(late) == SRTPTestPackets.rtp(seq: 1))  // inside 128
        #expect(throws: SRTPError.replayFail) { try sender.protect(SRTPTestPackets.rtp(seq: 50)) }
    }

    @Test("a specific session takes its SSRC only; a wrong key fails", arguments: SRTPProfile.allCases)
    func ssrcAndKey(profile: SRTPProfile) throws {
        let (anySender, _) = try Self.pair(profile, seed: 402, ssrc: .any)
        let (specificSender, receiver) = try Self.pair(profile, seed: 402)
        let other = SRTPTestPackets.rtp(seq: 1, ssrc: 99)
        #expect(throws: SRTPError.unknownSSRC) { try specificSender.protect(other) }
        #expect(throws: SRTPError.unknownSSRC) { try specificSender.protectRTCP(SRTPTestPackets.rtcp(ssrc: 99)) }
        #expect(throws: SRTPError.unknownSSRC) { try receiver.unprotect(anySender.protect(other)) }
        #expect(throws: SRTPError.unknownSSRC) {
            try receiver.unprotectRTCP(anySender.protectRTCP(SRTPTestPackets.rtcp(ssrc: 99)))
        }
        let (_, wrongKey) = try Self.pair(profile, seed: 403)
        #expect(throws: SRTPError.authFail) {
            try wrongKey.unprotect(specificSender.protect(SRTPTestPackets.rtp(seq: 2)))
        }
        #expect(throws: SRTPError.authFail) {
            try wrongKey.unprotectRTCP(specificSender.protectRTCP(SRTPTestPackets.rtcp(ssrc: Self.ssrc)))
        }
    }

    @Test("wrong direction, key lengths, window sizes and overheads as SRTPSession has them")
    func configuration() throws {
        let (outbound, inbound) = try Self.pair(.aesCM128HMACSHA1_80, seed: 404)
        #expect(throws: SRTPError.wrongDirection) { try inbound.protect(SRTPTestPackets.rtp(seq: 1)) }
        #expect(throws: SRTPError.wrongDirection) { try inbound.protectRTCP(SRTPTestPackets.rtcp(ssrc: 1)) }
        #expect(throws: SRTPError.wrongDirection) { try outbound.unprotect(SRTPTestPackets.rtp(seq: 1)) }
        #expect(throws: SRTPError.wrongDirection) { try outbound.unprotectRTCP(SRTPTestPackets.rtcp(ssrc: 1)) }
        for length in [0, 16, 27, 29, 31] {
            let bytes = [UInt8](repeating: 1, count: length)
            #expect(throws: SRTPError.badKeyLength(length)) {
                try PortableSRTPSession(direction: .inbound, key: bytes, ssrc: .any)
            }
        }
        let gcmKey = SRTPTestPackets.key(405, .aeadAES128GCM)
        #expect(throws: SRTPError.badKeyLength(28)) {
            try PortableSRTPSession(direction: .inbound, key: gcmKey, ssrc: .any)
        }
        #expect(throws: SRTPError.badKeyLength(30)) {
            try PortableSRTPSession(
                direction: .inbound, key: [UInt8](repeating: 0, count: 30), ssrc: .any, profile: .aeadAES128GCM)
        }
        for size in [0, 63, 0x8000] {
            #expect(throws: SRTPError.badReplayWindow(size)) {
                try PortableSRTPSession(
                    direction: .inbound, key: SRTPTestPackets.key(406), ssrc: .any, replayWindowSize: size)
            }
        }
        #expect(PortableSRTPSession.defaultReplayWindowSize == SRTPSession.defaultReplayWindowSize)
        #expect(PortableSRTPSession.replayWindowSizes == SRTPSession.replayWindowSizes)
        let gcm = try PortableSRTPSession(direction: .outbound, key: gcmKey.bytes, ssrc: .any, profile: .aeadAES128GCM)
        #expect(outbound.rtpOverhead == 10 && outbound.rtcpOverhead == 14)
        #expect(gcm.rtpOverhead == 16 && gcm.rtcpOverhead == 20)
        #expect(try gcm.protect(SRTPTestPackets.rtp(seq: 1)).count == SRTPTestPackets.rtp(seq: 1).count + 16)
    }
}
