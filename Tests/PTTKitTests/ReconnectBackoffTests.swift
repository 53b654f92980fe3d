import PTTKit
import Testing

@Suite("ReconnectBackoff: exponential with full jitter")
struct ReconnectBackoffTests {
    @Test("the ceiling doubles from the initial wait up to the maximum, and each wait is the drawn share of it")
    func doublesUpToTheMaximum() {
        var backoff = ReconnectBackoff(initial: .milliseconds(100), maximum: .seconds(1))
        #expect(backoff.nextDelay(unit: 1) == .milliseconds(100))
        #expect(backoff.nextDelay(unit: 1) == .milliseconds(200))
        #expect(backoff.nextDelay(unit: 0.5) == .milliseconds(200))
        #expect(backoff.nextDelay(unit: 1) == .milliseconds(800))
        #expect(backoff.nextDelay(unit: 1) == .seconds(1))
        for _ in 0..<100 { _ = backoff.nextDelay(unit: 1) }
        #expect(backoff.nextDelay(unit: 1) == .seconds(1), "no overflow after many failures")
        #expect(backoff.nextDelay(unit: 0) == .zero)
    }

    @Test("a success or a changed network path starts again from the initial wait")
    func resetStartsAgain() {
        var backoff = ReconnectBackoff(initial: .milliseconds(50), maximum: .seconds(10))
        for _ in 0..<5 { _ = backoff.nextDelay(unit: 1) }
        #expect(backoff.failures == 5)
        backoff.reset()
        #expect(backoff.failures == 0)
        #expect(backoff.nextDelay(unit: 1) == .milliseconds(50))
    }

    @Test("draws outside 0...1 are clamped")
    func clamped() {
        var backoff = ReconnectBackoff(initial: .milliseconds(100), maximum: .seconds(1))
        #expect(backoff.nextDelay(unit: 7) == .milliseconds(100))
        #expect(backoff.nextDelay(unit: -3) == .zero)
    }
}

@Suite("HeartbeatWatch: a silent connection is dead after 1.5 heartbeat intervals")
struct HeartbeatWatchTests {
    @Test("overdue only after 1.5 intervals of silence; each frame heard restarts the count")
    func overdue() {
        let ms: UInt64 = 1_000_000
        var watch = HeartbeatWatch(intervalMs: 200, now: 1_000 * ms)
        #expect(!watch.isOverdue(at: 1_200 * ms))
        #expect(!watch.isOverdue(at: 1_300 * ms))
        #expect(watch.isOverdue(at: 1_301 * ms))
        watch.heard(at: 1_250 * ms)
        #expect(!watch.isOverdue(at: 1_500 * ms))
        #expect(watch.isOverdue(at: 1_551 * ms))
        watch.heard(at: 1_100 * ms)  // an older time never moves it back
        #expect(watch.lastHeard == 1_250 * ms)
        #expect(watch.checkEvery == 20 * ms)
        #expect(HeartbeatWatch(intervalMs: 10, now: 0).checkEvery == 5 * ms)
    }
}
