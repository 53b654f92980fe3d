import Media
import Testing
import TestSupport

@Suite("SRTP sessions over libsrtp2")
struct SRTPSessionTests {
    private static func key(_ seed: UInt64) -> SRTPKey {
        var rng = SplitMix64(seed: seed)
        return SRTPKey.random(using: &rng)
    }

    private static func packet(seq: UInt16, ssrc: UInt32 = 0x1234_5678, payload: [UInt8] = Array(0..<40)) -> [UInt8] {
        try! RTPHeader.makePacket(
            marker: seq == 0, payloadType: 111, sequenceNumber: seq,
            timestamp: UInt32(seq) * 960, ssrc: ssrc, payload: payload
        )
    }

    @Test func knownAnswerFromLibsrtpValidationVectors() throws {
        // libsrtp's own srtp_validate() vectors (test/srtp_driver.c): default policy, SSRC 0xcafebabe.
        let key = try SRTPKey(bytes: [
            0xE1, 0xF9, 0x7A, 0x0D, 0x3E, 0x01, 0x8B, 0xE0, 0xD6, 0x4F, 0xA3, 0x2C, 0x06, 0xDE, 0x41, 0x39,
            0x0E, 0xC6, 0x75, 0xAD, 0x49, 0x8A, 0xFE, 0xEB, 0xB6, 0x96, 0x0B, 0x3A, 0xAB, 0xE6,
        ])
        let rtp: [UInt8] = [0x80, 0x0F, 0x12, 0x34, 0xDE, 0xCA, 0xFB, 0xAD, 0xCA, 0xFE, 0xBA, 0xBE]
            + [UInt8](repeating: 0xAB, count: 16)
        let srtp: [UInt8] = [
            0x80, 0x0F, 0x12, 0x34, 0xDE, 0xCA, 0xFB, 0xAD, 0xCA, 0xFE, 0xBA, 0xBE, 0x4E, 0x55, 0xDC, 0x4C,
            0xE7, 0x99, 0x78, 0xD8, 0x8C, 0xA4, 0xD2, 0x15, 0x94, 0x9D, 0x24, 0x02, 0xB7, 0x8D, 0x6A, 0xCC,
            0x99, 0xEA, 0x17, 0x9B, 0x8D, 0xBB,
        ]
        let rtcp: [UInt8] = [0x81, 0xC8, 0x00, 0x0B, 0xCA, 0xFE, 0xBA, 0xBE] + [UInt8](repeating: 0xAB, count: 16)
        let srtcp: [UInt8] = [
            0x81, 0xC8, 0x00, 0x0B, 0xCA, 0xFE, 0xBA, 0xBE, 0x71, 0x28, 0x03, 0x5B, 0xE4, 0x87, 0xB9, 0xBD,
            0xBE, 0xF8, 0x90, 0x41, 0xF9, 0x77, 0xA5, 0xA8, 0x80, 0x00, 0x00, 0x01, 0x99, 0x3E, 0x08, 0xCD,
            0x54, 0xD6, 0xC1, 0x23, 0x07, 0x98,
        ]
        let sender = try SRTPSession(direction: .outbound, key: key, ssrc: .specific(0xCAFE_BABE))
        let receiver = try SRTPSession(direction: .inbound, key: key, ssrc: .specific(0xCAFE_BABE))
        #expect(try sender.protect(rtp) == srtp)
        #expect(try receiver.unprotect(srtp) == rtp)
        #expect(try sender.protectRTCP(rtcp) == srtcp)
        #expect(try receiver.unprotectRTCP(srtcp) == rtcp)
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
            #expect(protected[..<12] == plain[..<12])             // header stays in the clear
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
            try receiver.unprotectRTCP(sender.protectRTCP(RTCPWriter.makeKeepAlive(ssrc: 1, cname: "x")))
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
        let keepAlive = try RTCPWriter.makeKeepAlive(ssrc: 77, cname: "listener-77")
        var previous: [UInt8] = []
        for _ in 0..<5 {
            let protected = try sender.protectRTCP(keepAlive)
            #expect(protected.count == keepAlive.count + SRTPSession.rtcpOverhead)
            #expect(protected.count == keepAlive.count + 14)
            #expect(protected != previous)                      // fresh SRTCP index each time
            #expect(protected[..<8] == keepAlive[..<8])          // first 8 bytes in the clear
            #expect(RTPHeader.isRTCP(protected))
            let plain = try receiver.unprotectRTCP(protected)
            #expect(plain == keepAlive)
            #expect(try RTCPCompound.validate(plain) == 2)
            #expect(throws: SRTPError.replayFail) { try receiver.unprotectRTCP(protected) }
            previous = protected
        }
    }

    @Test func badKeyLengths() {
        for length in [0, 16, 29, 31, 46] {
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

    @Test func badReplayWindow() {
        for size in [0, 63, 0x8000] {
            #expect(throws: SRTPError.badReplayWindow(size)) {
                try SRTPSession(direction: .inbound, key: Self.key(12), ssrc: .any, replayWindowSize: size)
            }
        }
    }

    @Test func insufficientCapacity() throws {
        let sender = try SRTPSession(direction: .outbound, key: Self.key(13), ssrc: .any)
        let plain = Self.packet(seq: 1)
        var buffer = plain + [UInt8](repeating: 0, count: SRTPSession.rtpTrailerCapacity - 1)
        buffer.withUnsafeMutableBytes { raw in
            #expect(throws: SRTPError.insufficientCapacity(needed: plain.count + 144, available: plain.count + 143)) {
                try sender.protect(raw, length: plain.count)
            }
            #expect(throws: SRTPError.insufficientCapacity(needed: plain.count + 148, available: plain.count + 143)) {
                try sender.protectRTCP(raw, length: plain.count)
            }
            #expect(throws: SRTPError.badParam) { try sender.protect(raw, length: -1) }
        }
        #expect(buffer == plain + [UInt8](repeating: 0, count: 143))   // untouched
    }

    @Test func wrongDirection() throws {
        let inbound = try SRTPSession(direction: .inbound, key: Self.key(14), ssrc: .any)
        let outbound = try SRTPSession(direction: .outbound, key: Self.key(14), ssrc: .any)
        #expect(throws: SRTPError.wrongDirection) { try inbound.protect(Self.packet(seq: 1)) }
        #expect(throws: SRTPError.wrongDirection) { try inbound.protectRTCP(RTCPWriter.makeKeepAlive(ssrc: 1, cname: nil)) }
        #expect(throws: SRTPError.wrongDirection) { try outbound.unprotect(Self.packet(seq: 1)) }
        #expect(throws: SRTPError.wrongDirection) { try outbound.unprotectRTCP(RTCPWriter.makeKeepAlive(ssrc: 1, cname: nil)) }
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
        // Concurrent creation also exercises the once-only srtp_init().
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
            .authFail, .replayFail, .badParam, .allocFail, .unknownSSRC, .other(99), .badKeyLength(3),
            .badKeyEncoding, .badReplayWindow(1), .insufficientCapacity(needed: 2, available: 1),
            .wrongDirection, .libraryInit(5),
        ]
        #expect(Set(errors.map(\.description)).count == errors.count)
        #expect(SRTPError.other(99).description.contains("99"))
    }
}
