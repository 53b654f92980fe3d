import SRTP
import TestSupport
import Testing

/// Malformed and hostile input: every case is an error, never a crash or a read outside the packet. Each
/// test runs on SRTPSession (libcrypto) and PortableSRTPSession (swift-crypto).
@Suite("SRTP malformed input")
struct SRTPMalformedInputTests {
    private static func sessions(
        _ implementation: SRTPImplementation, _ profile: SRTPProfile
    ) throws -> (out: any SRTPArraySession, in: any SRTPArraySession) {
        let key = SRTPTestPackets.key(200, profile)
        return (
            try implementation.session(.outbound, key: key, ssrc: .any, profile: profile),
            try implementation.session(.inbound, key: key, ssrc: .any, profile: profile)
        )
    }

    @Test(
        "random bytes of every length up to 120 are rejected", arguments: SRTPImplementation.ours, SRTPProfile.allCases)
    func randomBytes(implementation: SRTPImplementation, profile: SRTPProfile) throws {
        let (_, receiver) = try Self.sessions(implementation, profile)
        var rng = SplitMix64(seed: 0x5352_5450)
        for round in 0..<3_000 {
            var bytes = (0..<(round % 121)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            if round % 2 == 0, !bytes.isEmpty { bytes[0] = 0x80 | (bytes[0] & 0x3F) }  // half look like RTP v2
            #expect(throws: SRTPError.self) { try receiver.unprotect(bytes) }
            #expect(throws: SRTPError.self) { try receiver.unprotectRTCP(bytes) }
        }
    }

    @Test(
        "every truncation of a genuine packet is rejected, and the packet still goes through after",
        arguments: SRTPImplementation.ours, SRTPProfile.allCases)
    func truncations(implementation: SRTPImplementation, profile: SRTPProfile) throws {
        let (sender, receiver) = try Self.sessions(implementation, profile)
        let plain = SRTPTestPackets.rtp(seq: 5, csrcs: [1, 2], extensionWords: [3, 4])
        let protected = try sender.protect(plain)
        let report = try sender.protectRTCP(SRTPTestPackets.rtcp(ssrc: 0x1234_5678))
        for length in 0..<protected.count {
            #expect(throws: SRTPError.self) { try receiver.unprotect(Array(protected[..<length])) }
        }
        for length in 0..<report.count {
            #expect(throws: SRTPError.self) { try receiver.unprotectRTCP(Array(report[..<length])) }
        }
        #expect(try receiver.unprotect(protected) == plain)
        #expect(try receiver.unprotectRTCP(report) == SRTPTestPackets.rtcp(ssrc: 0x1234_5678))
    }

    @Test(
        "a CSRC count or extension length reaching past the packet is a bad parameter",
        arguments: SRTPImplementation.ours, SRTPProfile.allCases)
    func headerFieldsPastTheEnd(implementation: SRTPImplementation, profile: SRTPProfile) throws {
        let (sender, receiver) = try Self.sessions(implementation, profile)
        let tag = [UInt8](repeating: 0xAA, count: profile.tagLength)
        // 15 CSRCs announced, 2 present.
        var manyCSRCs = SRTPTestPackets.rtp(seq: 1, payload: [], csrcs: [1, 2])
        manyCSRCs[0] = 0x8F
        #expect(throws: SRTPError.badParam) { try receiver.unprotect(manyCSRCs + tag) }
        #expect(throws: SRTPError.badParam) { try sender.protect(manyCSRCs) }
        // Extension of 0xFFFF words announced, one present.
        var longExtension = SRTPTestPackets.rtp(seq: 2, payload: [1, 2, 3, 4], extensionWords: [9])
        longExtension[14] = 0xFF
        longExtension[15] = 0xFF
        #expect(throws: SRTPError.badParam) { try receiver.unprotect(longExtension + tag) }
        #expect(throws: SRTPError.badParam) { try sender.protect(longExtension) }
        // X bit set but no room for the extension header itself.
        var noExtensionHeader = SRTPTestPackets.rtp(seq: 3, payload: [])
        noExtensionHeader[0] |= 0x10
        #expect(throws: SRTPError.badParam) { try receiver.unprotect(noExtensionHeader + [0, 0] + tag) }
        #expect(throws: SRTPError.badParam) { try sender.protect(noExtensionHeader + [0, 0]) }
        // Not version 2.
        var version1 = SRTPTestPackets.rtp(seq: 4)
        version1[0] = 0x40
        #expect(throws: SRTPError.badParam) { try receiver.unprotect(version1 + tag) }
        #expect(throws: SRTPError.badParam) { try sender.protect(version1) }
        // RTCP shorter than its 8-byte header.
        #expect(throws: SRTPError.badParam) { try sender.protectRTCP([0x80, 201, 0, 1, 0, 0, 0]) }
    }

    @Test(
        "random headers with every CSRC count and extension length: protect and unprotect never crash",
        arguments: SRTPImplementation.ours, SRTPProfile.allCases)
    func randomHeaders(implementation: SRTPImplementation, profile: SRTPProfile) throws {
        let (sender, receiver) = try Self.sessions(implementation, profile)
        var rng = SplitMix64(seed: 0xC5_0C)
        for round in 0..<2_000 {
            var bytes = (0..<(12 + round % 80)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            bytes[0] = 0x80 | (bytes[0] & 0x3F)
            bytes[2] = UInt8(truncatingIfNeeded: round >> 8)
            bytes[3] = UInt8(truncatingIfNeeded: round)
            _ = try? receiver.unprotect(bytes)
            // Whatever protect accepts must come back unchanged.
            if let protected = try? sender.protect(bytes) {
                #expect(try receiver.unprotect(protected) == bytes)
            }
        }
    }
}
