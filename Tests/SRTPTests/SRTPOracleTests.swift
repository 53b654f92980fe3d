import LibSRTP
import SRTP
import TestSupport
import Testing

/// SRTPSession (libcrypto) and PortableSRTPSession (swift-crypto) against libsrtp2 (LibSRTPSession, the
/// oracle), both ways and both profiles: the same
/// key and packets must give the same bytes, each side must unprotect what the other protected, and
/// both must accept and reject the same packets in the same order.
@Suite("SRTP against libsrtp2")
struct SRTPOracleTests {
    private static let ssrc: UInt32 = 0x5EED_0001

    /// 65500 … 65535, then 0 … 200: across a rollover.
    private static let wrappingSequence: [UInt16] = (65500...65535).map { UInt16($0) } + (0...200).map { UInt16($0) }

    private static func payload(_ n: Int) -> [UInt8] {
        (0..<(20 + n % 90)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ n) }
    }

    private static func senders(
        _ ours: SRTPImplementation, _ profile: SRTPProfile, key: SRTPKey, ssrc: SRTPSSRCSelection = .specific(ssrc)
    ) throws -> (any SRTPArraySession, LibSRTPSession) {
        (
            try ours.session(.outbound, key: key, ssrc: ssrc, profile: profile),
            try LibSRTPSession(direction: .outbound, key: key, ssrc: ssrc, profile: profile)
        )
    }

    private static func receivers(
        _ ours: SRTPImplementation, _ profile: SRTPProfile, key: SRTPKey, ssrc: SRTPSSRCSelection = .specific(ssrc)
    ) throws -> (any SRTPArraySession, LibSRTPSession) {
        (
            try ours.session(.inbound, key: key, ssrc: ssrc, profile: profile),
            try LibSRTPSession(direction: .inbound, key: key, ssrc: ssrc, profile: profile)
        )
    }

    @Test(
        "same bytes as libsrtp across a rollover, and each unprotects the other's packets",
        arguments: SRTPImplementation.ours, SRTPProfile.allCases)
    func rtpAcrossRollover(ours implementation: SRTPImplementation, profile: SRTPProfile) throws {
        let key = SRTPTestPackets.key(100, profile)
        let (ours, theirs) = try Self.senders(implementation, profile, key: key)
        let (oursIn, theirsIn) = try Self.receivers(implementation, profile, key: key)
        for (n, seq) in Self.wrappingSequence.enumerated() {
            let plain = SRTPTestPackets.rtp(seq: seq, ssrc: Self.ssrc, payload: Self.payload(n))
            let mine = try ours.protect(plain)
            #expect(mine == (try theirs.protect(plain)), "seq \(seq)")
            #expect(try theirsIn.unprotect(mine) == plain, "libsrtp unprotects ours, seq \(seq)")
            #expect(try oursIn.unprotect(mine) == plain, "we unprotect ours, seq \(seq)")
        }
    }

    @Test(
        "libsrtp protects, we unprotect, with CSRCs and header extensions", arguments: SRTPImplementation.ours,
        SRTPProfile.allCases)
    func csrcsAndExtensions(ours implementation: SRTPImplementation, profile: SRTPProfile) throws {
        let key = SRTPTestPackets.key(101, profile)
        let (ours, theirs) = try Self.senders(implementation, profile, key: key)
        let (oursIn, theirsIn) = try Self.receivers(implementation, profile, key: key)
        let shapes: [([UInt32], [UInt32]?)] = [
            ([1], nil), ([1, 2, 3], nil), ([], [0x1122_3344]), ([7, 8], [0xAABB_CCDD, 0x0102_0304]),
            (Array(1...15), [0, 0, 0]), ([], []), ([9], []),
        ]
        for (n, (csrcs, words)) in shapes.enumerated() {
            let plain = SRTPTestPackets.rtp(
                seq: UInt16(n), ssrc: Self.ssrc, payload: Self.payload(n), csrcs: csrcs, extensionWords: words)
            let fromLibsrtp = try theirs.protect(plain)
            let fromUs = try ours.protect(plain)
            #expect(fromUs == fromLibsrtp, "shape \(n)")
            let headerLength = plain.count - Self.payload(n).count
            #expect(fromUs[..<headerLength] == plain[..<headerLength], "header, CSRCs and extension stay in the clear")
            #expect(try oursIn.unprotect(fromLibsrtp) == plain)
            #expect(try theirsIn.unprotect(fromUs) == plain)
        }
    }

    @Test(
        "reordered, lost and duplicated packets around a rollover: we accept and reject exactly what libsrtp does",
        arguments: SRTPImplementation.ours, SRTPProfile.allCases)
    func reorderingMatchesLibsrtp(ours implementation: SRTPImplementation, profile: SRTPProfile) throws {
        let key = SRTPTestPackets.key(102, profile)
        let (ours, _) = try Self.senders(implementation, profile, key: key)
        let (oursIn, theirsIn) = try Self.receivers(implementation, profile, key: key)
        var protected = try Self.wrappingSequence.enumerated().map { n, seq in
            try ours.protect(SRTPTestPackets.rtp(seq: seq, ssrc: Self.ssrc, payload: Self.payload(n)))
        }
        // Lose every 9th, swap neighbours in places, send some twice, and one far too late.
        var rng = SplitMix64(seed: 0x0DD_E12)
        protected = protected.enumerated().filter { $0.offset % 9 != 4 }.map(\.element)
        for index in stride(from: 1, to: protected.count - 3, by: 5) where Bool.random(using: &rng) {
            protected.swapAt(index, index + 2)
        }
        var deliveries: [[UInt8]] = []
        for (index, packet) in protected.enumerated() {
            deliveries.append(packet)
            if index % 13 == 0 { deliveries.append(packet) }  // duplicate at once
            if index % 31 == 0, index >= 20 { deliveries.append(protected[index - 20]) }  // 20 late, seen before
        }
        deliveries.append(protected[0])  // ~230 packets late: outside the 128 window
        var accepted = 0
        for (index, packet) in deliveries.enumerated() {
            let mine = Result { () throws(SRTPError) in try oursIn.unprotect(packet) }
            let oracle = Result { () throws(SRTPError) in try theirsIn.unprotect(packet) }
            #expect(mine == oracle, "delivery \(index)")
            if case .success = mine { accepted += 1 }
        }
        #expect(accepted == protected.count)
    }

    @Test("SRTCP: same bytes, both ways, replay rejected", arguments: SRTPImplementation.ours, SRTPProfile.allCases)
    func rtcpBothWays(ours implementation: SRTPImplementation, profile: SRTPProfile) throws {
        let key = SRTPTestPackets.key(103, profile)
        let (ours, theirs) = try Self.senders(implementation, profile, key: key)
        let (oursIn, theirsIn) = try Self.receivers(implementation, profile, key: key)
        for n in 0..<40 {
            let plain = SRTPTestPackets.rtcp(ssrc: Self.ssrc, cname: String(repeating: "c", count: n % 20))
            let mine = try ours.protectRTCP(plain)
            #expect(mine == (try theirs.protectRTCP(plain)), "packet \(n)")
            #expect(mine.count == plain.count + profile.rtcpOverhead)
            #expect(try theirsIn.unprotectRTCP(mine) == plain)
            #expect(try oursIn.unprotectRTCP(mine) == plain)
            #expect(throws: SRTPError.replayFail) { try oursIn.unprotectRTCP(mine) }
            #expect(throws: SRTPError.replayFail) { try theirsIn.unprotectRTCP(mine) }
        }
    }

    @Test(
        "libsrtp protects RTP and RTCP for any SSRC; we unprotect", arguments: SRTPImplementation.ours,
        SRTPProfile.allCases)
    func libsrtpToUsAnySSRC(ours implementation: SRTPImplementation, profile: SRTPProfile) throws {
        let key = SRTPTestPackets.key(104, profile)
        let theirs = try LibSRTPSession(direction: .outbound, key: key, ssrc: .any, profile: profile)
        let oursIn = try implementation.session(.inbound, key: key, ssrc: .any, profile: profile)
        for n in 0..<300 {
            let ssrc = UInt32(0x100 + n % 3)
            let seq = UInt16(truncatingIfNeeded: 65_400 + n / 3)
            let plain = SRTPTestPackets.rtp(seq: seq, ssrc: ssrc, payload: Self.payload(n))
            #expect(try oursIn.unprotect(theirs.protect(plain)) == plain)
            if n % 10 == 0 {
                let report = SRTPTestPackets.rtcp(ssrc: ssrc)
                #expect(try oursIn.unprotectRTCP(theirs.protectRTCP(report)) == report)
            }
        }
    }

    @Test(
        "tampered header, payload or tag, and a wrong key: both reject", arguments: SRTPImplementation.ours,
        SRTPProfile.allCases)
    func tamperingRejectedLikeLibsrtp(ours implementation: SRTPImplementation, profile: SRTPProfile) throws {
        let key = SRTPTestPackets.key(105, profile)
        let (ours, _) = try Self.senders(implementation, profile, key: key)
        let plain = SRTPTestPackets.rtp(
            seq: 7, ssrc: Self.ssrc, payload: Self.payload(7), csrcs: [3], extensionWords: [1])
        let protected = try ours.protect(plain)
        let report = try ours.protectRTCP(SRTPTestPackets.rtcp(ssrc: Self.ssrc))
        for index in [0, 1, 5, 9, 13, 20, plain.count - 1, plain.count, protected.count - 1] {
            var tampered = protected
            tampered[index] ^= 0x10
            let (oursIn, theirsIn) = try Self.receivers(implementation, profile, key: key)
            let mine = Result { () throws(SRTPError) in try oursIn.unprotect(tampered) }
            #expect(mine == Result { () throws(SRTPError) in try theirsIn.unprotect(tampered) }, "byte \(index)")
            #expect(throws: SRTPError.self) { try mine.get() }
        }
        for index in [1, 4, 9, report.count - 15, report.count - 5, report.count - 1] {
            var tampered = report
            tampered[index] ^= 0x01
            let (oursIn, theirsIn) = try Self.receivers(implementation, profile, key: key)
            let mine = Result { () throws(SRTPError) in try oursIn.unprotectRTCP(tampered) }
            #expect(
                mine == Result { () throws(SRTPError) in try theirsIn.unprotectRTCP(tampered) }, "RTCP byte \(index)")
            #expect(throws: SRTPError.self) { try mine.get() }
        }
        let wrong = SRTPTestPackets.key(106, profile)
        let (oursIn, theirsIn) = try Self.receivers(implementation, profile, key: wrong)
        #expect(throws: SRTPError.authFail) { try oursIn.unprotect(protected) }
        #expect(throws: SRTPError.authFail) { try theirsIn.unprotect(protected) }
        #expect(throws: SRTPError.authFail) { try oursIn.unprotectRTCP(report) }
        #expect(throws: SRTPError.authFail) { try theirsIn.unprotectRTCP(report) }
    }

    @Test(
        "the sender refuses a repeated sequence number like libsrtp, unless repeats are allowed",
        arguments: SRTPImplementation.ours, SRTPProfile.allCases)
    func repeatTransmit(ours implementation: SRTPImplementation, profile: SRTPProfile) throws {
        let key = SRTPTestPackets.key(107, profile)
        for allow in implementation == .portable ? [false] : [false, true] {
            let ours = try implementation.session(
                .outbound, key: key, ssrc: .specific(Self.ssrc), profile: profile, allowRepeatTransmit: allow)
            let theirs = try LibSRTPSession(
                direction: .outbound, key: key, ssrc: .specific(Self.ssrc), allowRepeatTransmit: allow, profile: profile
            )
            for seq: UInt16 in [10, 11, 10, 12, 11, 300, 10] {
                let plain = SRTPTestPackets.rtp(seq: seq, ssrc: Self.ssrc)
                let mine = Result { () throws(SRTPError) in try ours.protect(plain) }
                #expect(
                    mine == Result { () throws(SRTPError) in try theirs.protect(plain) }, "seq \(seq), allow \(allow)")
            }
        }
    }
}
