import Testing

@testable import PTTCore

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
        #expect(
            floor.request(candidate(alice), memberCount: 3, now: at(1000))
                == [.granted(alice, talkTime: .zero), .taken(by: alice)])
        _ = floor.request(candidate(bob), memberCount: 3, now: at(1000))
        _ = floor.request(candidate(carol), memberCount: 3, now: at(1000))
        #expect(floor.nextDeadline == at(1000))
        // Every new holder is due at once: the floor cascades through the queue and ends idle.
        #expect(
            floor.timersExpired(now: at(1000)) == [
                .revoked(alice, .talkTimeExceeded), .granted(bob, talkTime: .zero), .taken(by: bob),
                .queued(carol, position: 1),
                .revoked(bob, .talkTimeExceeded), .granted(carol, talkTime: .zero), .taken(by: carol),
                .revoked(carol, .talkTimeExceeded), .idle,
            ])
        #expect(floor.isIdle)
    }

    @Test func negativeGraceActsAsZero() {
        var floor = takenFloor(.init(preemptionGrace: .seconds(-1)))
        #expect(
            floor.request(candidate(bob, 9), memberCount: 3, now: at(1500))
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
        #expect(
            floor.request(candidate(bob, Int.max), memberCount: 3, now: at(1000))
                == [.queued(bob, position: 1), .preemptionPending(holder: alice, by: bob, grace: .seconds(1))])
        #expect(
            floor.request(candidate(carol, Int.min), memberCount: 3, now: at(1000)) == [.queued(carol, position: 2)])
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
