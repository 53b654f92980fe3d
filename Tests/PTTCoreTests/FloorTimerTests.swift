@testable import PTTCore
import Testing

@Suite("Floor control: timers T1 and T2")
struct FloorTimerTests: FloorTesting {
    // Alice granted at 1000: T1 due at 3000, T2 due at 31000.

    @Test(arguments: [1000, 2000, 2999])
    func t1NotYetDue(ms: Int) {
        var floor = takenFloor()
        #expect(floor.timersExpired(now: at(ms)) == [])
        #expect(floor.holder == alice)
        #expect(floor.nextDeadline == at(3000))
    }

    @Test(arguments: [3000, 3001, 9000, 31000, 100_000])
    func t1DueAtOrAfter(ms: Int) {
        var floor = takenFloor()
        // Even long after, T1 fired first: it was the earlier deadline.
        #expect(floor.timersExpired(now: at(ms)) == [.revoked(alice, .endOfMedia), .idle])
        #expect(floor.isIdle)
        #expect(floor.nextDeadline == nil)
        #expect(floor.timersExpired(now: at(ms)) == [])
    }

    @Test func t1IsMeasuredFromTheLaterOfGrantAndLastMedia() {
        var floor = takenFloor()
        _ = floor.mediaReceived(from: alice, now: at(1000))
        #expect(floor.nextDeadline == at(3000))
        _ = floor.mediaReceived(from: alice, now: at(2999))
        #expect(floor.nextDeadline == at(4999))
        #expect(floor.timersExpired(now: at(4998)) == [])
        #expect(floor.timersExpired(now: at(4999)) == [.revoked(alice, .endOfMedia), .idle])
    }

    /// Media every 500 ms from alice: T1 never fires, T2 does.
    func steadilyTalkingFloor(until ms: Int) -> FloorControl {
        var floor = takenFloor()
        var t = 1500
        while t <= ms {
            _ = floor.mediaReceived(from: alice, now: at(t))
            #expect(floor.timersExpired(now: at(t)) == [])
            t += 500
        }
        return floor
    }

    @Test func t2NotYetDueWithSteadyMedia() {
        var floor = steadilyTalkingFloor(until: 30500)
        #expect(floor.nextDeadline == at(31000))  // T2 (30500 + T1 would be 32500)
        #expect(floor.timersExpired(now: at(30999)) == [])
        #expect(floor.talkTimeLeft(now: at(30999)) == .milliseconds(1))
    }

    @Test func t2DueExactlyWithSteadyMedia() {
        var floor = steadilyTalkingFloor(until: 30500)
        #expect(floor.timersExpired(now: at(31000)) == [.revoked(alice, .talkTimeExceeded), .idle])
        #expect(floor.isIdle)
    }

    @Test func t2DueAfterWithSteadyMedia() {
        var floor = steadilyTalkingFloor(until: 30500)
        _ = floor.mediaReceived(from: alice, now: at(31000))  // media right at T2 does not help
        #expect(floor.timersExpired(now: at(31400)) == [.revoked(alice, .talkTimeExceeded), .idle])
    }

    @Test func nextDeadlineTracksTheEarlierOfT1AndT2() {
        var floor = takenFloor()
        _ = floor.mediaReceived(from: alice, now: at(28000))
        #expect(floor.nextDeadline == at(30000))  // T1
        _ = floor.mediaReceived(from: alice, now: at(29500))
        #expect(floor.nextDeadline == at(31000))  // T2
    }

    @Test func t1AndT2DueTogetherReportTalkTime() {
        var floor = takenFloor(.init(endOfMediaTimeout: .seconds(5), maxTalkTime: .seconds(5)))
        #expect(floor.nextDeadline == at(6000))
        #expect(floor.timersExpired(now: at(6000)) == [.revoked(alice, .talkTimeExceeded), .idle])
    }

    @Test func t1ShorterThanT2LongAfterBothReportsT1() {
        var floor = takenFloor(.init(endOfMediaTimeout: .seconds(1), maxTalkTime: .seconds(2)))
        #expect(floor.timersExpired(now: at(10000)) == [.revoked(alice, .endOfMedia), .idle])
    }

    @Test func t2ShorterThanT1ReportsT2() {
        var floor = takenFloor(.init(endOfMediaTimeout: .seconds(5), maxTalkTime: .seconds(3)))
        #expect(floor.nextDeadline == at(4000))
        #expect(floor.timersExpired(now: at(3999)) == [])
        #expect(floor.timersExpired(now: at(4000)) == [.revoked(alice, .talkTimeExceeded), .idle])
    }

    @Test func expiryHandsOffWithFreshTimersAndNoCascade() {
        var floor = queuedFloor()  // alice; carol, bob, dave
        // Long overdue: only alice is revoked; carol's timers start now.
        #expect(floor.timersExpired(now: at(50000)) == [
            .revoked(alice, .endOfMedia), .granted(carol, talkTime: fullTalk), .taken(by: carol),
            .queued(bob, position: 1), .queued(dave, position: 2),
        ])
        #expect(floor.holder == carol)
        #expect(floor.nextDeadline == at(52000))
        #expect(floor.talkTimeLeft(now: at(50000)) == fullTalk)
    }

    @Test func t2ExpiryHandsOff() {
        var floor = takenFloor(.init(endOfMediaTimeout: .seconds(10), maxTalkTime: .seconds(4)))
        _ = floor.request(candidate(bob), memberCount: 3, now: at(2000))
        #expect(floor.timersExpired(now: at(5000)) == [
            .revoked(alice, .talkTimeExceeded), .granted(bob, talkTime: .seconds(4)), .taken(by: bob),
        ])
        #expect(floor.nextDeadline == at(9000))
    }

    @Test func mediaFromTheFormerHolderDoesNotAffectTheNewOne() {
        var floor = queuedFloor()
        _ = floor.release(alice, now: at(2000))  // carol holds, T1 due 4000
        _ = floor.mediaReceived(from: alice, now: at(3500))
        #expect(floor.nextDeadline == at(4000))
        _ = floor.mediaReceived(from: carol, now: at(3500))
        #expect(floor.nextDeadline == at(5500))
    }
}

@Suite("Floor control: defensive")
struct FloorDefensiveTests: FloorTesting {
    @Test func timeGoingBackwardsIsClamped() {
        var floor = idleFloor()
        _ = floor.request(candidate(alice), memberCount: 2, now: at(5000))
        #expect(floor.nextDeadline == at(7000))
        // Media stamped before the grant counts as at the grant.
        _ = floor.mediaReceived(from: alice, now: at(1000))
        #expect(floor.nextDeadline == at(7000))
        #expect(floor.timersExpired(now: at(100)) == [])
        #expect(floor.talkTimeLeft(now: at(0)) == fullTalk)
        #expect(floor.snapshot(now: at(0)).talkTimeLeft == fullTalk)
        #expect(floor.request(candidate(alice), memberCount: 2, now: at(0)) == [.granted(alice, talkTime: fullTalk)])
        // Going forward again works as usual.
        _ = floor.mediaReceived(from: alice, now: at(6000))
        #expect(floor.nextDeadline == at(8000))
    }

    @Test func aGrantAfterTimeWentBackwardsStartsAtTheLatestInstant() {
        var floor = idleFloor()
        _ = floor.request(candidate(alice), memberCount: 2, now: at(9000))
        _ = floor.release(alice, now: at(9500))
        _ = floor.request(candidate(bob), memberCount: 2, now: at(1000))
        #expect(floor.nextDeadline == at(11500))
        #expect(floor.talkTimeLeft(now: at(1000)) == fullTalk)
    }

    @Test func preemptionGraceAfterTimeWentBackwards() {
        var floor = takenFloor()
        _ = floor.mediaReceived(from: alice, now: at(2000))
        _ = floor.request(candidate(bob, 5), memberCount: 3, now: at(500))
        #expect(floor.nextDeadline == at(3000))  // T3 from 2000
    }

    @Test func zeroOrNegativeTimersDoNotLoopForever() {
        let configuration = FloorConfiguration(
            endOfMediaTimeout: .seconds(-1), maxTalkTime: .zero, preemptionGrace: .seconds(-3))
        var floor = idleFloor(configuration)
        #expect(floor.request(candidate(alice), memberCount: 3, now: at(1000))
            == [.granted(alice, talkTime: .zero), .taken(by: alice)])
        _ = floor.request(candidate(bob), memberCount: 3, now: at(1000))
        _ = floor.request(candidate(carol), memberCount: 3, now: at(1000))
        #expect(floor.nextDeadline == at(1000))
        // Every new holder is due at once: the floor cascades through the queue and ends idle.
        #expect(floor.timersExpired(now: at(1000)) == [
            .revoked(alice, .talkTimeExceeded), .granted(bob, talkTime: .zero), .taken(by: bob), .queued(carol, position: 1),
            .revoked(bob, .talkTimeExceeded), .granted(carol, talkTime: .zero), .taken(by: carol),
            .revoked(carol, .talkTimeExceeded), .idle,
        ])
        #expect(floor.isIdle)
    }

    @Test func negativeGraceActsAsZero() {
        var floor = takenFloor(.init(preemptionGrace: .seconds(-1)))
        #expect(floor.request(candidate(bob, 9), memberCount: 3, now: at(1500))
            == [.queued(bob, position: 1), .preemptionPending(holder: alice, by: bob, grace: .zero)])
        #expect(floor.nextDeadline == at(1500))
    }

    @Test func unknownMembersEverywhere() {
        var floor = queuedFloor()
        let before = floor.snapshot(now: at(2000))
        #expect(floor.release(stranger, now: at(2000)) == [])
        #expect(floor.memberLeft(stranger, now: at(2000)) == [])
        #expect(floor.mediaReceived(from: stranger, now: at(2000)) == [])
        #expect(floor.snapshot(now: at(2000)) == before)
    }

    @Test func extremePriorities() {
        var floor = idleFloor()
        _ = floor.request(candidate(alice, Int.min), memberCount: 3, now: at(1000))
        #expect(floor.request(candidate(bob, Int.max), memberCount: 3, now: at(1000))
            == [.queued(bob, position: 1), .preemptionPending(holder: alice, by: bob, grace: .seconds(1))])
        #expect(floor.request(candidate(carol, Int.min), memberCount: 3, now: at(1000)) == [.queued(carol, position: 2)])
    }

    @Test func repeatedReleasesAndLeavesAreHarmless() {
        var floor = queuedFloor()
        _ = floor.release(bob, now: at(2000))
        #expect(floor.release(bob, now: at(2000)) == [])
        #expect(floor.memberLeft(bob, now: at(2000)) == [])
        _ = floor.memberLeft(alice, now: at(2000))
        #expect(floor.memberLeft(alice, now: at(2000)) == [])
        #expect(floor.release(alice, now: at(2000)) == [])
        #expect(floor.holder == carol)
    }
}
