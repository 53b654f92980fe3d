import SRTP
import TestSupport
import Testing

/// SRTPSession on its own: round trips, replay, rollover, errors, for both profiles.
@Suite("SRTP sessions")
struct SRTPSessionTests {
    private static func key(_ seed: UInt64, _ profile: SRTPProfile = .aesCM128HMACSHA1_80) -> SRTPKey {
        SRTPTestPackets.key(seed, profile)
    }

    private static func packet(seq: UInt16, ssrc: UInt32 = 0x1234_5678, payload: [UInt8] = Array(0..<40)) -> [UInt8] {
        SRTPTestPackets.rtp(seq: seq, ssrc: ssrc, payload: payload)
    }

    private static func keepAlive(ssrc: UInt32, cname: String = "x") -> [UInt8] {
        SRTPTestPackets.rtcp(ssrc: ssrc, cname: cname)
    }

    @Test(arguments: [SRTPSession.SSRCSelection.specific(0x1234_5678), .any])
    func rtpRoundTrip(selection: SRTPSession.SSRCSelection) throws {
        let key = Self.key(1)
        let sender = try SRTPSession(direction: .outbound, key: key, ssrc: selection)
        let receiver = try SRTPSession(direction: .inbound, key: key, ssrc: selection)
        for seq in UInt16(0)..<50 {
            let plain = Self.packet(seq: seq)
            let protected = try sender.protect(plain)
            #expect(protected.count == plain.count + SRTPSession.rtpOverhead)
            #expect(protected.count == plain.count + 10)
            #expect(protected[..<12] == plain[..<12])  // header stays in the clear
            #expect(protected[12..<plain.count] != plain[12...])  // payload does not
            #expect(try receiver.unprotect(protected) == plain)
        }
    }

    @Test func sequenceNumberWrapAroundKeepsWorking() throws {
        // The rollover counter must follow a munged stream across 0xFFFF → 0.
        let key = Self.key(2)
        let sender = try SRTPSession(direction: .outbound, key: key, ssrc: .specific(0x1234_5678))
        let receiver = try SRTPSession(direction: .inbound, key: key, ssrc: .specific(0x1234_5678))
        for step in 0..<20 {
            let plain = Self.packet(seq: UInt16(truncatingIfNeeded: 0xFFF6 + step))
            #expect(try receiver.unprotect(sender.protect(plain)) == plain)
        }
    }

    @Test func inPlaceOverRawBuffer() throws {
        let key = Self.key(3)
        let sender = try SRTPSession(direction: .outbound, key: key, ssrc: .specific(0x1234_5678))
        let receiver = try SRTPSession(direction: .inbound, key: key, ssrc: .specific(0x1234_5678))
        let plain = Self.packet(seq: 9)
        var buffer = [UInt8](repeating: 0, count: 1500 + SRTPSession.rtpTrailerCapacity)
        buffer.replaceSubrange(0..<plain.count, with: plain)
        try buffer.withUnsafeMutableBytes { raw in
            let protectedLength = try sender.protect(raw, length: plain.count)
            #expect(protectedLength == plain.count + 10)
            let plainLength = try receiver.unprotect(raw, length: protectedLength)
            #expect(plainLength == plain.count)
        }
        #expect(Array(buffer[..<plain.count]) == plain)
    }

    @Test func tamperedPacketFailsAuthentication() throws {
        let key = Self.key(4)
        let sender = try SRTPSession(direction: .outbound, key: key, ssrc: .any)
        let receiver = try SRTPSession(direction: .inbound, key: key, ssrc: .any)
        let protected = try sender.protect(Self.packet(seq: 1))
        for index in [1, 3, 7, 11, 12, protected.count - 11, protected.count - 1] {
            var tampered = protected
            tampered[index] ^= 0x01
            #expect(throws: SRTPError.authFail) { try receiver.unprotect(tampered) }
        }
        // The genuine packet still goes through after the failed attempts.
        #expect(try receiver.unprotect(protected) == Self.packet(seq: 1))
    }

    @Test func replayedPacketIsRejected() throws {
        let key = Self.key(5)
        let sender = try SRTPSession(direction: .outbound, key: key, ssrc: .specific(0x1234_5678))
        let receiver = try SRTPSession(direction: .inbound, key: key, ssrc: .specific(0x1234_5678))
        let first = try sender.protect(Self.packet(seq: 100))
        #expect(try receiver.unprotect(first) == Self.packet(seq: 100))
        #expect(throws: SRTPError.replayFail) { try receiver.unprotect(first) }
    }

    @Test func packetOlderThanTheReplayWindowIsRejected() throws {
        let key = Self.key(6)
        let sender = try SRTPSession(direction: .outbound, key: key, ssrc: .specific(0x1234_5678))
        let narrow = try SRTPSession(direction: .inbound, key: key, ssrc: .specific(0x1234_5678), replayWindowSize: 64)
        let wide = try SRTPSession(direction: .inbound, key: key, ssrc: .specific(0x1234_5678))
        #expect(narrow.replayWindowSize == 64)
        #expect(wide.replayWindowSize == 128)
        let late = try sender.protect(Self.packet(seq: 1))
        for seq in UInt16(2)...100 {
            let packet = try sender.protect(Self.packet(seq: seq))
            _ = try narrow.unprotect(packet)
            _ = try wide.unprotect(packet)
        }
        // 99 packets late: outside a 64-packet window, inside a 128-packet one.
        #expect(throws: SRTPError.replayFail) { try narrow.unprotect(late) }
        #expect(try wide.unprotect(late) == Self.packet(seq: 1))
    }

    @Test func senderRefusesToProtectTheSameSequenceNumberTwice() throws {
        let sender = try SRTPSession(direction: .outbound, key: Self.key(7), ssrc: .specific(0x1234_5678))
        _ = try sender.protect(Self.packet(seq: 10))
        #expect(throws: SRTPError.replayFail) { try sender.protect(Self.packet(seq: 10)) }
        let lenient = try SRTPSession(
            direction: .outbound, key: Self.key(7), ssrc: .specific(0x1234_5678), allowRepeatTransmit: true
        )
        #expect(try lenient.protect(Self.packet(seq: 10)) == lenient.protect(Self.packet(seq: 10)))
    }

    @Test func wrongKeyFailsAuthentication() throws {
        let sender = try SRTPSession(direction: .outbound, key: Self.key(8), ssrc: .any)
        let receiver = try SRTPSession(direction: .inbound, key: Self.key(9), ssrc: .any)
        #expect(throws: SRTPError.authFail) { try receiver.unprotect(sender.protect(Self.packet(seq: 1))) }
        #expect(throws: SRTPError.authFail) {
            try receiver.unprotectRTCP(sender.protectRTCP(Self.keepAlive(ssrc: 1)))
        }
    }

    @Test func specificSessionRejectsOtherSSRCs() throws {
        let key = Self.key(10)
        let sender = try SRTPSession(direction: .outbound, key: key, ssrc: .any)
        let receiver = try SRTPSession(direction: .inbound, key: key, ssrc: .specific(1))
        #expect(throws: SRTPError.unknownSSRC) { try receiver.unprotect(sender.protect(Self.packet(seq: 1, ssrc: 2))) }
        let specificSender = try SRTPSession(direction: .outbound, key: key, ssrc: .specific(1))
        #expect(throws: SRTPError.unknownSSRC) { try specificSender.protect(Self.packet(seq: 1, ssrc: 2)) }
    }

    @Test func rtcpRoundTrip() throws {
        let key = Self.key(11)
        let sender = try SRTPSession(direction: .outbound, key: key, ssrc: .specific(77))
        let receiver = try SRTPSession(direction: .inbound, key: key, ssrc: .specific(77))
        let keepAlive = Self.keepAlive(ssrc: 77, cname: "listener-77")
        var previous: [UInt8] = []
        for _ in 0..<5 {
            let protected = try sender.protectRTCP(keepAlive)
            #expect(protected.count == keepAlive.count + SRTPSession.rtcpOverhead)
            #expect(protected.count == keepAlive.count + 14)
            #expect(protected != previous)  // fresh SRTCP index each time
            #expect(protected[..<8] == keepAlive[..<8])  // first 8 bytes in the clear
            #expect((192...223).contains(protected[1]))  // still looks like RTCP on a muxed port
            let plain = try receiver.unprotectRTCP(protected)
            #expect(plain == keepAlive)
            #expect(throws: SRTPError.replayFail) { try receiver.unprotectRTCP(protected) }
            previous = protected
        }
    }

    @Test func badKeyLengths() {
        for length in [0, 16, 27, 29, 31, 46] {
            let bytes = [UInt8](repeating: 1, count: length)
            #expect(throws: SRTPError.badKeyLength(length)) { try SRTPKey(bytes: bytes) }
            #expect(throws: SRTPError.badKeyLength(length)) {
                try SRTPSession(direction: .inbound, key: bytes, ssrc: .any)
            }
        }
        #expect(throws: SRTPError.badKeyLength(15 + 14)) {
            try SRTPKey(masterKey: [UInt8](repeating: 0, count: 15), salt: [UInt8](repeating: 0, count: 14))
        }
        #expect(SRTPError.badKeyLength(29).description.contains("30 bytes"))
    }

    @Test("a key must fit the session's profile: 30 bytes for AES-CM, 28 for GCM")
    func keyMustFitTheProfile() throws {
        let cm = Self.key(30, .aesCM128HMACSHA1_80)
        let gcm = Self.key(31, .aeadAES128GCM)
        #expect(cm.bytes.count == 30 && cm.profile == .aesCM128HMACSHA1_80)
        #expect(gcm.bytes.count == 28 && gcm.profile == .aeadAES128GCM)
        #expect(throws: SRTPError.badKeyLength(28)) { try SRTPSession(direction: .inbound, key: gcm, ssrc: .any) }
        #expect(throws: SRTPError.badKeyLength(30)) {
            try SRTPSession(direction: .inbound, key: cm, ssrc: .any, profile: .aeadAES128GCM)
        }
        #expect(throws: SRTPError.badKeyLength(30)) {
            try SRTPSession(direction: .inbound, key: cm.bytes, ssrc: .any, profile: .aeadAES128GCM)
        }
        #expect(try SRTPKey(base64: gcm.base64) == gcm)
        #expect(gcm.sdpCryptoAttribute().hasPrefix("a=crypto:1 AEAD_AES_128_GCM inline:"))
    }

    @Test func profiles() throws {
        #expect(SRTPProfile(name: "AES_CM_128_HMAC_SHA1_80") == .aesCM128HMACSHA1_80)
        #expect(SRTPProfile(name: "AEAD_AES_128_GCM") == .aeadAES128GCM)
        #expect(SRTPProfile(name: "AES_CM_128_HMAC_SHA1_32") == nil)
        #expect(SRTPProfile.aesCM128HMACSHA1_80.keyLength == 30)
        #expect(SRTPProfile.aeadAES128GCM.keyLength == 28)
        #expect(SRTPProfile.aesCM128HMACSHA1_80.rtpOverhead == 10 && SRTPProfile.aesCM128HMACSHA1_80.rtcpOverhead == 14)
        #expect(SRTPProfile.aeadAES128GCM.rtpOverhead == 16 && SRTPProfile.aeadAES128GCM.rtcpOverhead == 20)
        let gcm = try SRTPSession(
            direction: .outbound, key: Self.key(32, .aeadAES128GCM), ssrc: .any, profile: .aeadAES128GCM)
        #expect(gcm.rtpOverhead == 16 && gcm.rtcpOverhead == 20 && gcm.suiteName == "AEAD_AES_128_GCM")
        #expect(SRTPSession.rtpTrailerCapacity >= 16 && SRTPSession.rtcpTrailerCapacity >= 20)
        let plain = Self.packet(seq: 3)
        #expect(try gcm.protect(plain).count == plain.count + 16)
        #expect(try gcm.protectRTCP(Self.keepAlive(ssrc: 9)).count == Self.keepAlive(ssrc: 9).count + 20)
    }

    @Test func badReplayWindow() {
        for size in [0, 63, 0x8000] {
            #expect(throws: SRTPError.badReplayWindow(size)) {
                try SRTPSession(direction: .inbound, key: Self.key(12), ssrc: .any, replayWindowSize: size)
            }
        }
    }

    @Test(arguments: SRTPProfile.allCases)
    func insufficientCapacity(profile: SRTPProfile) throws {
        let sender = try SRTPSession(direction: .outbound, key: Self.key(13, profile), ssrc: .any, profile: profile)
        let plain = Self.packet(seq: 1)
        let room = profile.rtpOverhead - 1
        var buffer = plain + [UInt8](repeating: 0, count: room)
        buffer.withUnsafeMutableBytes { raw in
            #expect(
                throws: SRTPError.insufficientCapacity(
                    needed: plain.count + profile.rtpOverhead, available: plain.count + room)
            ) {
                try sender.protect(raw, length: plain.count)
            }
            #expect(
                throws: SRTPError.insufficientCapacity(
                    needed: plain.count + profile.rtcpOverhead, available: plain.count + room)
            ) {
                try sender.protectRTCP(raw, length: plain.count)
            }
            #expect(throws: SRTPError.badParam) { try sender.protect(raw, length: -1) }
        }
        #expect(buffer == plain + [UInt8](repeating: 0, count: room))  // untouched
    }

    @Test func wrongDirection() throws {
        let inbound = try SRTPSession(direction: .inbound, key: Self.key(14), ssrc: .any)
        let outbound = try SRTPSession(direction: .outbound, key: Self.key(14), ssrc: .any)
        #expect(throws: SRTPError.wrongDirection) { try inbound.protect(Self.packet(seq: 1)) }
        #expect(throws: SRTPError.wrongDirection) { try inbound.protectRTCP(Self.keepAlive(ssrc: 1)) }
        #expect(throws: SRTPError.wrongDirection) { try outbound.unprotect(Self.packet(seq: 1)) }
        #expect(throws: SRTPError.wrongDirection) { try outbound.unprotectRTCP(Self.keepAlive(ssrc: 1)) }
    }

    @Test func garbageIsRejectedWithoutCrashing() throws {
        let receiver = try SRTPSession(direction: .inbound, key: Self.key(15), ssrc: .any)
        var rng = SplitMix64(seed: 0x5352_5450)
        for _ in 0..<2_000 {
            var bytes = (0..<Int.random(in: 0...100, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            if !bytes.isEmpty { bytes[0] = 0x80 | (bytes[0] & 0x3F) }
            #expect(throws: SRTPError.self) { try receiver.unprotect(bytes) }
            #expect(throws: SRTPError.self) { try receiver.unprotectRTCP(bytes) }
        }
    }

    @Test func manySessionsComeAndGo() async throws {
        // Concurrent creation also exercises the once-only fetch of the OpenSSL ciphers.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for index in 0..<250 {
                        let key = Self.key(UInt64(task * 1_000 + index))
                        let ssrc = UInt32(index)
                        let sender = try SRTPSession(direction: .outbound, key: key, ssrc: .specific(ssrc))
                        let receiver = try SRTPSession(direction: .inbound, key: key, ssrc: .any)
                        let plain = Self.packet(seq: UInt16(index), ssrc: ssrc)
                        #expect(try receiver.unprotect(sender.protect(plain)) == plain)
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    @Test func errorDescriptions() {
        let errors: [SRTPError] = [
            .authFail, .replayFail, .badParam, .unknownSSRC, .badKeyLength(3), .badKeyEncoding,
            .badReplayWindow(1), .insufficientCapacity(needed: 2, available: 1), .wrongDirection,
            .indexExhausted, .cryptoFailure("EVP_CIPHER_CTX_new"),
        ]
        #expect(Set(errors.map(\.description)).count == errors.count)
        #expect(SRTPError.cryptoFailure("EVP_CIPHER_CTX_new").description.contains("EVP_CIPHER_CTX_new"))
    }
}
