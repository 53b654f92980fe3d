import Foundation
import Testing

@testable import PTTCore

@Suite struct PushBackoffTests {
    typealias W = WakeFixture

    @Test func pausesDoubleUpToAMinuteAndADeliveryResetsThem() {
        var backoff = PushBackoff()
        #expect(!backoff.isBackingOff(now: W.date(0)))
        backoff.recordBackOff(now: W.date(0))
        #expect(
            backoff.until == W.date(1) && backoff.isBackingOff(now: W.date(0.5))
                && !backoff.isBackingOff(now: W.date(1)))
        backoff.recordBackOff(now: W.date(0.5))  // an answer to a request sent before the pause: no longer pause
        #expect(backoff.until == W.date(1))
        var at = 1.0
        var delays: [Double] = []
        for _ in 0..<8 {
            backoff.recordBackOff(now: W.date(at))
            delays.append(backoff.lastDelay ?? 0)
            at = backoff.until!.timeIntervalSince(W.date(0))
        }
        #expect(delays == [2, 4, 8, 16, 32, 60, 60, 60])
        backoff.recordSuccess()
        #expect(backoff.until == nil && backoff.lastDelay == nil)
        backoff.recordBackOff(now: W.date(1_000))
        #expect(backoff.lastDelay == 1)
    }

    @Test func aFailureLongAfterThePauseStillDoubles() {
        var backoff = PushBackoff()
        #expect(backoff.until == nil && backoff.lastDelay == nil)
        backoff.recordBackOff(now: W.date(0))
        backoff.recordBackOff(now: W.date(3_600))
        #expect(backoff.lastDelay == 2)
        #expect(backoff.until == W.date(3_602))
    }
}
