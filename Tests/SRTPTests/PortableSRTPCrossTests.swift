import PortableSRTP
import SRTP
import TestSupport
import Testing

/// PortableSRTPSession (swift-crypto) against SRTPSession (libcrypto): for the same key and packets the
/// protected bytes are equal, and each unprotects what the other protected. Random RTP packets with CSRCs,
/// header extensions and payloads of every size, across sequence rollovers; SRTCP; several SSRCs.
@Suite("PortableSRTP against SRTPSession")
struct PortableSRTPCrossTests {
    private static let ssrc: UInt32 = 0x0DD_BA11

    /// A random RTP packet with sequence number `seq`: 0–15 CSRCs, no extension or one of 0–6 words,
    /// 0–300 payload bytes.
    private static func randomRTP(seq: UInt16, ssrc: UInt32 = ssrc, using rng: inout SplitMix64) -> [UInt8] {
        let csrcs = (0..<Int.random(in: 0...15, using: &rng)).map { _ in UInt32.random(in: .min ... .max, using: &rng) }
        let words: [UInt32]? =
            Bool.random(using: &rng)
            ? (0..<Int.random(in: 0...6, using: &rng)).map { _ in UInt32.random(in: .min ... .max, using: &rng) } : nil
        let payload = (0..<Int.random(in: 0...300, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
        return SRTPTestPackets.rtp(seq: seq, ssrc: ssrc, payload: payload, csrcs: csrcs, extensionWords: words)
    }

    /// The sessions of both implementations for one key: (libcrypto out, portable out, libcrypto in,
    /// portable in).
    private static func sessions(
        _ profile: SRTPProfile, seed: UInt64, ssrc: SRTPSSRCSelection = .specific(ssrc)
    ) throws -> (SRTPSession, PortableSRTPSession, SRTPSession, PortableSRTPSession) {
        let key = SRTPTestPackets.key(seed, profile)
        return (
            try SRTPSession(direction: .outbound, key: key, ssrc: ssrc, profile: profile),
            try PortableSRTPSession(direction: .outbound, key: key, ssrc: ssrc, profile: profile),
            try SRTPSession(direction: .inbound, key: key, ssrc: ssrc, profile: profile),
            try PortableSRTPSession(direction: .inbound, key: key, ssrc: ssrc, profile: profile)
        )
    }

    @Test(
        "2000 random RTP packets across two rollovers: the same bytes, and each unprotects the other's",
        arguments: SRTPProfile.allCases)
    func randomPacketsAcrossRollovers(profile: SRTPProfile) throws {
        let (libcrypto, portable, libcryptoIn, portableIn) = try Self.sessions(profile, seed: 300)
        var rng = SplitMix64(seed: 0x9047_AB1E)
        var sequence: UInt16 = 64_800
        var rollovers = 0
        for n in 0..<2_000 {
            let previous = sequence
            if n > 0 { sequence &+= UInt16.random(in: 1...70, using: &rng) }  // with losses on the way
            if sequence < previous { rollovers += 1 }
            let plain = Self.randomRTP(seq: sequence, using: &rng)
            let fromPortable = try portable.protect(plain)
            let fromLibcrypto = try libcrypto.protect(plain)
            #expect(fromPortable == fromLibcrypto, "seq \(sequence)")
            #expect(fromPortable.count == plain.count + profile.rtpOverhead)
            #expect(try libcryptoIn.unprotect(fromPortable) == plain, "libcrypto unprotects portable, seq \(sequence)")
            #expect(try portableIn.unprotect(fromLibcrypto) == plain, "portable unprotects libcrypto, seq \(sequence)")
        }
        #expect(rollovers == 2)
    }

    @Test(
        "the rollover counter moves on at 65535 → 0: a receiver that missed the wrap fails",
        arguments: SRTPProfile.allCases)
    func rolloverCounterIncrements(profile: SRTPProfile) throws {
        let (libcrypto, portable, _, portableIn) = try Self.sessions(profile, seed: 301)
        var last: [UInt8] = []
        for seq in [UInt16(65_534), 65_535, 0] {
            let plain = SRTPTestPackets.rtp(seq: seq, ssrc: Self.ssrc)
            last = try portable.protect(plain)
            #expect(last == (try libcrypto.protect(plain)))
            #expect(try portableIn.unprotect(last) == plain)
        }
        // Sequence 0 went out with ROC 1; a fresh receiver assumes ROC 0, so the tag (AES-CM: HMAC over
        // the ROC; GCM: the ROC is in the IV) does not verify.
        let (_, _, freshLibcrypto, freshPortable) = try Self.sessions(profile, seed: 301)
        #expect(throws: SRTPError.authFail) { try freshPortable.unprotect(last) }
        #expect(throws: SRTPError.authFail) { try freshLibcrypto.unprotect(last) }
    }

    @Test(
        "SRTCP: the same bytes for 300 reports, each side unprotects the other's, replays rejected",
        arguments: SRTPProfile.allCases)
    func rtcpBothWays(profile: SRTPProfile) throws {
        let (libcrypto, portable, libcryptoIn, portableIn) = try Self.sessions(profile, seed: 302)
        for n in 0..<300 {
            let plain = SRTPTestPackets.rtcp(ssrc: Self.ssrc, cname: String(repeating: "p", count: n % 40))
            let fromPortable = try portable.protectRTCP(plain)
            let fromLibcrypto = try libcrypto.protectRTCP(plain)
            #expect(fromPortable == fromLibcrypto, "report \(n)")
            #expect(fromPortable.count == plain.count + profile.rtcpOverhead)
            #expect(fromPortable[..<8] == plain[..<8])
            #expect(try libcryptoIn.unprotectRTCP(fromPortable) == plain)
            #expect(try portableIn.unprotectRTCP(fromLibcrypto) == plain)
            #expect(throws: SRTPError.replayFail) { try portableIn.unprotectRTCP(fromLibcrypto) }
        }
    }

    @Test("any SSRC: three interleaved streams, each with its own rollover counter", arguments: SRTPProfile.allCases)
    func anySSRC(profile: SRTPProfile) throws {
        let (libcrypto, portable, libcryptoIn, portableIn) = try Self.sessions(profile, seed: 303, ssrc: .any)
        var rng = SplitMix64(seed: 0xA11_55C)
        for n in 0..<600 {
            let ssrc = UInt32(0x500 + n % 3)
            let seq = UInt16(truncatingIfNeeded: 65_436 + n / 3 + Int(ssrc & 1) * 50)
            let plain = Self.randomRTP(seq: seq, ssrc: ssrc, using: &rng)
            let fromPortable = try portable.protect(plain)
            #expect(fromPortable == (try libcrypto.protect(plain)), "packet \(n)")
            #expect(try libcryptoIn.unprotect(fromPortable) == plain)
            #expect(try portableIn.unprotect(fromPortable) == plain)
            if n % 7 == 0 {
                let report = SRTPTestPackets.rtcp(ssrc: ssrc)
                let protected = try portable.protectRTCP(report)
                #expect(protected == (try libcrypto.protectRTCP(report)))
                #expect(try portableIn.unprotectRTCP(protected) == report)
            }
        }
    }
}
