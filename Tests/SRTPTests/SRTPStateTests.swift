@_spi(SRTPInternals) import SRTPFormat
import Testing

/// The pure pieces: packet index estimation (RFC 3711 §3.3.1) and the replay window.
@Suite("SRTP index and replay window")
struct SRTPStateTests {
    @Test func indexEstimate() {
        // (sequence, highest index so far) → index
        let cases: [(UInt16, UInt64, UInt64)] = [
            (0, 0, 0), (100, 0, 100), (65_535, 100, 65_535),  // ROC 0 never guesses −1
            (5, 65_530, 0x1_0005),  // wrapped forward
            (65_530, 0x1_0005, 65_530),  // late packet from before the wrap
            (40_000, 0x1_0005, 0x0_9C40),  // > 2^15 behind: previous ROC
            (30_000, 0x1_0005, 0x1_7530),  // < 2^15 ahead: same ROC
            (1, 0x2_FFFF, 0x3_0001), (0xFFFE, 0x3_0001, 0x2_FFFE),
            (0x8000, 0x5_0000, 0x5_8000), (0x8001, 0x5_0000, 0x4_8001),
        ]
        for (sequence, highest, expected) in cases {
            #expect(
                SRTPPacketIndex.estimate(sequence: sequence, highest: highest) == expected,
                "seq \(sequence) after \(String(highest, radix: 16))")
        }
        #expect(SRTPPacketIndex.rolloverCounter(0x1234_5678_9ABC) == 0x1234_5678)
    }

    @Test(arguments: [64, 128, 200, 1_000, 32_767])
    func replayWindow(size: Int) {
        var window = SRTPReplayWindow(size: size)
        #expect(window.verdict(for: 0) == .fresh)
        window.accept(0)
        #expect(window.verdict(for: 0) == .duplicate)
        let top = (UInt64(size) * 3 + 17) | 1  // odd: the odd indices up to it are accepted
        for index in stride(from: UInt64(1), through: top, by: 2) { window.accept(index) }
        #expect(window.highest == top)
        #expect(window.verdict(for: top) == .duplicate)
        #expect(window.verdict(for: top + 1) == .fresh)
        #expect(window.verdict(for: top - 1) == .fresh)  // even: never seen
        #expect(window.verdict(for: top - 2) == .duplicate)
        let oldest = top - UInt64(size) + 1
        #expect(window.verdict(for: oldest) == (oldest % 2 == 1 ? .duplicate : .fresh))
        #expect(window.verdict(for: top - UInt64(size)) == .tooOld)
        #expect(window.verdict(for: 0) == .tooOld)
        // A jump further than the window forgets everything before it.
        window.accept(top + 5 * UInt64(size))
        #expect(window.verdict(for: top + 5 * UInt64(size) - 1) == .fresh)
        #expect(window.verdict(for: top) == .tooOld)
    }
}
