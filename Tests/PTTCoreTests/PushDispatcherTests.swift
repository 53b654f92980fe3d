import Foundation
import Testing

@testable import PTTCore

/// The notifier's flow control without I/O: writes per connection, APNs concurrency and back-off, expiry and the
/// one sweep timer.
@Suite struct PushDispatcherTests {
    typealias W = WakeFixture
    typealias Dispatcher = PushDispatcher<Int>

    static func dispatcher(capacity: Int = 8, concurrency: Int = 2, apns: Bool = true) -> Dispatcher {
        Dispatcher(outboxCapacity: capacity, apnsConcurrency: concurrency, apnsConfigured: apns)
    }

    static func writes(_ actions: [Dispatcher.Action]) -> [String] {
        actions.compactMap { if case .write(let item, _) = $0 { item.id } else { nil } }
    }

    static func sends(_ actions: [Dispatcher.Action]) -> [OutboxItem<Dispatcher.APNsJob>] {
        actions.compactMap { if case .sendAPNs(let item) = $0 { item } else { nil } }
    }

    static func records(_ actions: [Dispatcher.Action]) -> [PushRecord] {
        actions.compactMap { if case .record(let record) = $0 { record } else { nil } }
    }

    static func sweeps(_ actions: [Dispatcher.Action]) -> [PTTInstant?] {
        actions.compactMap {
            switch $0 {
            case .armSweep(let at): return .some(at)
            case .cancelSweep: return .some(nil)
            default: return nil
            }
        }
    }

    @Test func writesAtMostFourPerConnectionThenOneMorePerFinishedWrite() {
        var d = Self.dispatcher()
        var written: [String] = []
        for n in 0..<6 { written += Self.writes(d.queue(W.item("p\(n)", deadline: 1_000 + n), to: 1, now: W.at(0))) }
        #expect(written == ["p0", "p1", "p2", "p3"])
        #expect(d.writesInFlight(on: 1) == 4)
        #expect(d.pending == 2)
        let after = d.writeFinished(W.item("p0"), on: 1, error: nil, now: W.at(1))
        #expect(Self.writes(after) == ["p4"])
        #expect(
            Self.records(after) == [PushRecord(kind: .wake, member: W.alice, transport: .localPush, outcome: .sent)])
        let failed = d.writeFinished(W.item("p1"), on: 1, error: "write: EPIPE", now: W.at(2))
        #expect(Self.records(failed).map(\.outcome) == [.failed])
        #expect(Self.records(failed).map(\.reason) == ["write: EPIPE"])
        #expect(Self.writes(failed) == ["p5"])
        #expect(d.pending == 0)
    }

    @Test func connectionsDoNotShareTheirWriteLimit() {
        var d = Self.dispatcher()
        for n in 0..<4 { _ = d.queue(W.item("a\(n)"), to: 1, now: W.at(0)) }
        #expect(Self.writes(d.queue(W.item("b0"), to: 2, now: W.at(0))) == ["b0"])
    }

    @Test func aFullOutboxDropsItsLeastUrgentPushAndCountsItAsOverflow() {
        var d = Self.dispatcher(capacity: 1)
        for n in 0..<4 { _ = d.queue(W.item("busy\(n)"), to: 1, now: W.at(0)) }
        _ = d.queue(W.item("low", priority: 5, kind: .announce), to: 1, now: W.at(0))
        let actions = d.queue(W.item("high", priority: 10, member: W.bob), to: 1, now: W.at(0))
        // Even a dropped announcement is counted: it was queued and never handed over.
        #expect(
            Self.records(actions) == [
                PushRecord(
                    kind: .announce, member: W.alice, transport: .localPush, outcome: .expired,
                    reason: "overflow")
            ])
        #expect(d.pending == 1)
    }

    @Test func aClosedConnectionDropsWhatWaitedButNotAnnouncements() {
        var d = Self.dispatcher()
        for n in 0..<4 { _ = d.queue(W.item("w\(n)"), to: 7, now: W.at(0)) }
        _ = d.queue(W.item("wake", member: W.bob), to: 7, now: W.at(0))
        _ = d.queue(W.item("note", priority: 5, kind: .announce), to: 7, now: W.at(0))
        let actions = d.connectionClosed(7)
        #expect(Self.records(actions).map(\.member) == [W.bob])
        #expect(Self.records(actions).map(\.reason) == ["disconnected"])
        #expect(d.pending == 0 && d.writesInFlight(on: 7) == 0)
        #expect(Self.sweeps(actions) == [nil])
        // A write that finishes after the close writes nothing more.
        #expect(Self.writes(d.writeFinished(W.item("w0"), on: 7, error: "closed", now: W.at(1))).isEmpty)
    }

    @Test func apnsSendsUpToItsConcurrencyAndMoreAsAnswersArrive() {
        var d = Self.dispatcher(concurrency: 2)
        var sent: [OutboxItem<Dispatcher.APNsJob>] = []
        for n in 0..<3 {
            sent += Self.sends(d.queueAPNs(W.item("a\(n)"), token: [UInt8(n)], now: W.at(0), wallNow: W.date(0)))
        }
        #expect(sent.map(\.id) == ["a0", "a1"])
        #expect(sent.map(\.payload.token) == [[0], [1]])
        #expect(d.apnsRequestsInFlight == 2)
        let answered = d.apnsAnswered(
            sent[0], outcome: .sent, reason: nil, health: .delivered, now: W.at(1), wallNow: W.date(1))
        #expect(Self.sends(answered).map(\.id) == ["a2"])
        #expect(Self.records(answered).map(\.transport) == [.apns])
    }

    @Test func whileBackingOffWaitingApnsPushesExpireAtOnce() {
        var d = Self.dispatcher(concurrency: 1)
        let first = Self.sends(d.queueAPNs(W.item("a0"), token: [1], now: W.at(0), wallNow: W.date(0)))
        _ = d.queueAPNs(W.item("a1", member: W.bob), token: [2], now: W.at(0), wallNow: W.date(0))
        let answered = d.apnsAnswered(
            first[0], outcome: .rejected, reason: "TooManyRequests", health: .overloaded,
            now: W.at(1), wallNow: W.date(1))
        #expect(d.backoff.until == W.date(2))
        #expect(Self.sends(answered).isEmpty)
        #expect(Self.records(answered).map(\.reason) == ["TooManyRequests", "backoff"])
        let later = d.queueAPNs(W.item("a2"), token: [3], now: W.at(1_500), wallNow: W.date(1.5))
        #expect(Self.records(later).map(\.reason) == ["backoff"])
        // After the pause, sends resume; a delivery ends the back-off.
        let resumed = Self.sends(d.queueAPNs(W.item("a3"), token: [4], now: W.at(2_500), wallNow: W.date(2.5)))
        #expect(resumed.map(\.id) == ["a3"])
        _ = d.apnsAnswered(
            resumed[0], outcome: .sent, reason: nil, health: .delivered, now: W.at(2_600), wallNow: W.date(2.6))
        #expect(d.backoff.until == nil)
    }

    @Test func withoutApnsEveryApnsPushExpiresAsNoRoute() {
        var d = Self.dispatcher(apns: false)
        let actions = d.queueAPNs(W.item("a0"), token: [1], now: W.at(0), wallNow: W.date(0))
        #expect(Self.sends(actions).isEmpty)
        #expect(Self.records(actions).map(\.reason) == ["no-route"])
    }

    @Test func oneSweepTimerAtTheEarliestDeadlineDropsWhatExpired() {
        var d = Self.dispatcher(concurrency: 1)
        for n in 0..<4 { _ = d.queue(W.item("busy\(n)", deadline: 9_000), to: 1, now: W.at(0)) }
        #expect(
            Self.sweeps(d.queue(W.item("late", deadline: 500, member: W.carol), to: 1, now: W.at(0))) == [W.at(500)])
        // A later deadline does not move an earlier timer; an earlier one does.
        #expect(Self.sweeps(d.queue(W.item("later", deadline: 800), to: 1, now: W.at(0))).isEmpty)
        _ = d.queueAPNs(W.item("apns0", deadline: 9_000), token: [1], now: W.at(0), wallNow: W.date(0))
        #expect(
            Self.sweeps(
                d.queueAPNs(
                    W.item("apns1", deadline: 300, member: W.dave), token: [2], now: W.at(0),
                    wallNow: W.date(0))) == [W.at(300)])
        let first = d.sweep(now: W.at(301))  // the runtime fires 1 ms after the deadline
        #expect(Self.records(first).map(\.member) == [W.dave])
        #expect(Self.sweeps(first) == [W.at(500)])
        let second = d.sweep(now: W.at(900))
        #expect(Set(Self.records(second).map(\.member)) == [W.carol, W.alice])
        #expect(Self.records(second).allSatisfy { $0.reason == "deadline" })
        #expect(Self.sweeps(second).isEmpty)
        #expect(d.sweepAt == nil && d.pending == 0)
    }

    @Test func aPushPastItsDeadlineIsNeverWritten() {
        var d = Self.dispatcher()
        for n in 0..<4 { _ = d.queue(W.item("busy\(n)"), to: 1, now: W.at(0)) }
        _ = d.queue(W.item("stale", deadline: 100, member: W.erin), to: 1, now: W.at(0))
        let actions = d.writeFinished(W.item("busy0"), on: 1, error: nil, now: W.at(200))
        #expect(Self.writes(actions).isEmpty)
        #expect(
            Self.records(actions).last
                == PushRecord(
                    kind: .wake, member: W.erin, transport: .localPush, outcome: .expired,
                    reason: "deadline"))
    }

    @Test func anEndedBurstTakesItsWaitingWakesFromEveryOutbox() {
        var d = Self.dispatcher(concurrency: 1)
        let burst = BurstID("b1")
        for n in 0..<4 { _ = d.queue(W.item("busy\(n)"), to: 1, now: W.at(0)) }
        _ = d.queue(W.item("w1", member: W.bob, burst: burst), to: 1, now: W.at(0))
        _ = d.queueAPNs(W.item("a0"), token: [1], now: W.at(0), wallNow: W.date(0))
        _ = d.queueAPNs(W.item("a1", member: W.carol, burst: burst), token: [2], now: W.at(0), wallNow: W.date(0))
        let actions = d.burstEnded(burst)
        #expect(Set(Self.records(actions).map(\.member)) == [W.bob, W.carol])
        #expect(Self.records(actions).allSatisfy { $0.reason == "burst-ended" && $0.burst == burst })
        #expect(d.pending == 0)
    }

    @Test func aWithdrawnPushIsNeitherWrittenNorCounted() {
        var d = Self.dispatcher()
        for n in 0..<4 { _ = d.queue(W.item("busy\(n)"), to: 1, now: W.at(0)) }
        _ = d.queue(W.item("old", priority: 5, kind: .announce), to: 1, now: W.at(0))
        #expect(Self.records(d.withdraw(id: "old")).isEmpty)
        #expect(d.pending == 0)
        #expect(Self.writes(d.writeFinished(W.item("busy0"), on: 1, error: nil, now: W.at(1))).isEmpty)
    }

    @Test func stoppingCancelsAnArmedSweepOnce() {
        var d = Self.dispatcher()
        for n in 0..<5 { _ = d.queue(W.item("p\(n)"), to: 1, now: W.at(0)) }
        #expect(Self.sweeps(d.stop()) == [nil])
        #expect(d.stop().isEmpty)
    }
}
