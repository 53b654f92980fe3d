import Testing

@testable import PTTCore

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
        #expect(
            floor.timersExpired(now: at(50000)) == [
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
        #expect(
            floor.timersExpired(now: at(5000)) == [
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
