import PTTKit
import Testing

@Suite("TalkPacer: stamps and paces the app's Opus packets")
struct TalkPacerTests {
    static let ms: UInt64 = 1_000_000

    @Test("packets handed over at once leave 20 ms apart, with timestamps 960 apart and the marker on the first")
    func burstIsPaced() {
        var pacer = TalkPacer(timestamp: 4_294_966_000)
        let slots = (0..<5).map { _ in pacer.place(samples: 960, now: 1_000 * Self.ms) }
        #expect(slots.map(\.sendAt) == [1_000, 1_020, 1_040, 1_060, 1_080].map { $0 * Self.ms })
        #expect(slots.map(\.marker) == [true, false, false, false, false])
        #expect(slots.map(\.timestamp) == [4_294_966_000, 4_294_966_960, 624, 1_584, 2_544], "wraps around 2^32")
    }

    @Test("a packet handed over a little late is sent at once and keeps the timestamp sequence")
    func slightlyLate() {
        var pacer = TalkPacer(timestamp: 0)
        _ = pacer.place(samples: 960, now: 0)
        let late = pacer.place(samples: 960, now: 30 * Self.ms)
        #expect(late == TalkPacer.Slot(timestamp: 960, marker: false, sendAt: 30 * Self.ms))
        #expect(pacer.nextDue == 50 * Self.ms)
    }

    @Test("a pause longer than two packets shows in the timestamps; ending the spurt marks the next packet")
    func silence() {
        var pacer = TalkPacer(timestamp: 0)
        _ = pacer.place(samples: 960, now: 0)
        // Due at 20 ms, handed over at 120 ms: 100 ms late, five packets of silence.
        let after = pacer.place(samples: 960, now: 120 * Self.ms)
        #expect(after.timestamp == 960 + 5 * 960)
        #expect(!after.marker)
        pacer.endSpurt()
        let next = pacer.place(samples: 480, now: 500 * Self.ms)
        #expect(next.marker)
        #expect(next.sendAt == 500 * Self.ms)
        #expect(pacer.place(samples: 480, now: 500 * Self.ms).sendAt == 510 * Self.ms, "10 ms packets, 10 ms apart")
    }
}
