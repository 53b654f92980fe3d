import Testing

@testable import PTTCore

@Suite("Floor control: pre-emption pending")
struct FloorPreemptionTests: FloorTesting {
    // preemptingFloor: alice (1) holds since 1000 (T1 3000); queue carol (3), bob (0);
    // carol asked at 1500, so T3 is due at 2500.

    @Test func fixtureWarnsTheHolder() {
        var floor = takenFloor()
        _ = floor.request(candidate(bob, 0), memberCount: 5, now: at(1100))
        #expect(
            floor.request(candidate(carol, 3), memberCount: 5, now: at(1500)) == [
                .queued(carol, position: 1), .queued(bob, position: 2),
                .preemptionPending(holder: alice, by: carol, grace: .seconds(1)),
            ])
        #expect(floor.nextDeadline == at(2500))
        #expect(
            floor.snapshot(now: at(1500))
                == FloorSnapshot(
                    holder: alice, holderPriority: 1, holderUrgency: .ordinary, talkTimeLeft: .milliseconds(29500),
                    queue: [carol, bob], pendingPreemptionBy: carol))
    }

    @Test func requestByHolderDoesNotCancel() {
        var floor = preemptingFloor()
        #expect(
            floor.request(candidate(alice, 1), memberCount: 5, now: at(2000)) == [
                .granted(alice, talkTime: .seconds(29))
            ])
        #expect(floor.nextDeadline == at(2500))
    }

    @Test func requestByPreemptorAgainIsIdempotent() {
        var floor = preemptingFloor()
        #expect(floor.request(candidate(carol, 3), memberCount: 5, now: at(2000)) == [.queued(carol, position: 1)])
        #expect(floor.nextDeadline == at(2500))
    }

    @Test func anotherHigherRequestDoesNotRestartTheGrace() {
        var floor = preemptingFloor()
        #expect(
            floor.request(candidate(erin, 4), memberCount: 5, now: at(2000))
                == [.queued(erin, position: 1), .queued(carol, position: 2), .queued(bob, position: 3)])
        #expect(floor.nextDeadline == at(2500))
        #expect(floor.snapshot(now: at(2000)).pendingPreemptionBy == erin)
        #expect(
            floor.timersExpired(now: at(2500)) == [
                .revoked(alice, .preempted), .granted(erin, talkTime: fullTalk), .taken(by: erin),
                .queued(carol, position: 1), .queued(bob, position: 2),
            ])
        // carol (3) does not outrank erin (4).
        #expect(floor.snapshot(now: at(2500)).pendingPreemptionBy == nil)
        #expect(floor.nextDeadline == at(4500))
    }

    @Test func samePriorityAsPreemptorQueuesBehindIt() {
        var floor = preemptingFloor()
        #expect(
            floor.request(candidate(dave, 3), memberCount: 5, now: at(2000))
                == [.queued(dave, position: 2), .queued(bob, position: 3)])
        _ = floor.timersExpired(now: at(2500))
        #expect(floor.holder == carol)
        // dave (3) does not strictly outrank carol (3).
        #expect(floor.snapshot(now: at(2500)).pendingPreemptionBy == nil)
    }

    @Test func lowerPriorityQueuesWithoutNewWarning() {
        var floor = preemptingFloor()
        #expect(
            floor.request(candidate(dave, 1), memberCount: 5, now: at(2000)) == [
                .queued(dave, position: 2), .queued(bob, position: 3),
            ])
    }

    @Test func receiveOnlyIsDenied() {
        var floor = preemptingFloor()
        #expect(
            floor.request(candidate(erin, 9, receiveOnly: true), memberCount: 5, now: at(2000)) == [
                .denied(erin, .receiveOnly)
            ])
        #expect(floor.nextDeadline == at(2500))
    }

    @Test func queueFullDuringPreemption() {
        var floor = preemptingFloor(.init(queueCapacityPerPriority: 1))
        #expect(floor.request(candidate(dave, 3), memberCount: 5, now: at(2000)) == [.denied(dave, .queueFull)])
        #expect(floor.request(candidate(erin, 0), memberCount: 5, now: at(2000)) == [.denied(erin, .queueFull)])
        #expect(floor.nextDeadline == at(2500))
    }

    @Test(arguments: [1500, 2000, 2499])
    func t3NotYetDue(ms: Int) {
        var floor = preemptingFloor()
        #expect(floor.timersExpired(now: at(ms)) == [])
        #expect(floor.holder == alice)
        #expect(floor.nextDeadline == at(2500))
    }

    @Test(arguments: [2500, 2501, 2999])
    func t3DueAtOrAfter(ms: Int) {
        var floor = preemptingFloor()
        #expect(
            floor.timersExpired(now: at(ms)) == [
                .revoked(alice, .preempted), .granted(carol, talkTime: fullTalk), .taken(by: carol),
                .queued(bob, position: 1),
            ])
        #expect(floor.holder == carol)
        #expect(floor.snapshot(now: at(ms)).pendingPreemptionBy == nil)
        #expect(floor.nextDeadline == at(ms + 2000))
        #expect(floor.timersExpired(now: at(ms)) == [])
    }

    @Test func t3AndT1BothOverdueFiresT3OnlyOnce() {
        var floor = preemptingFloor()
        // T3 (2500) and T1 (3000) are both overdue: the earlier, T3, revokes alice; carol is fresh.
        #expect(
            floor.timersExpired(now: at(3500)) == [
                .revoked(alice, .preempted), .granted(carol, talkTime: fullTalk), .taken(by: carol),
                .queued(bob, position: 1),
            ])
        #expect(floor.nextDeadline == at(5500))
    }

    @Test func t1BeforeT3RevokesForEndOfMedia() {
        var floor = takenFloor()
        _ = floor.request(candidate(carol, 3), memberCount: 5, now: at(2500))  // T3 at 3500, T1 at 3000
        #expect(floor.nextDeadline == at(3000))
        #expect(
            floor.timersExpired(now: at(3600)) == [
                .revoked(alice, .endOfMedia), .granted(carol, talkTime: fullTalk), .taken(by: carol),
            ])
    }

    @Test func t3AndT1DueTogetherReportPreemption() {
        var floor = takenFloor()
        _ = floor.request(candidate(carol, 3), memberCount: 5, now: at(2000))  // T3 at 3000 = T1
        #expect(floor.nextDeadline == at(3000))
        #expect(
            floor.timersExpired(now: at(3000)) == [
                .revoked(alice, .preempted), .granted(carol, talkTime: fullTalk), .taken(by: carol),
            ])
    }

    @Test func mediaFromHolderDoesNotCancelPreemption() {
        var floor = preemptingFloor()
        _ = floor.mediaReceived(from: alice, now: at(2000))
        #expect(floor.nextDeadline == at(2500))
        #expect(floor.timersExpired(now: at(2500)).first == .revoked(alice, .preempted))
    }

    @Test func releaseByHolderDuringGraceIsANormalRelease() {
        var floor = preemptingFloor()
        #expect(
            floor.release(alice, now: at(2000))
                == [.granted(carol, talkTime: fullTalk), .taken(by: carol), .queued(bob, position: 1)])
        #expect(floor.snapshot(now: at(2000)).pendingPreemptionBy == nil)
        #expect(floor.nextDeadline == at(4000))
        #expect(floor.timersExpired(now: at(2500)) == [])
    }

    @Test func releaseByPreemptorCancelsPreemption() {
        var floor = preemptingFloor()
        #expect(floor.release(carol, now: at(2000)) == [.queueCancelled(carol), .queued(bob, position: 1)])
        #expect(floor.snapshot(now: at(2000)).pendingPreemptionBy == nil)
        #expect(floor.nextDeadline == at(3000))
        #expect(floor.timersExpired(now: at(2500)) == [])
        #expect(floor.holder == alice)
    }

    @Test func memberLeftPreemptorCancelsPreemption() {
        var floor = preemptingFloor()
        #expect(floor.memberLeft(carol, now: at(2000)) == [.queued(bob, position: 1)])
        #expect(floor.snapshot(now: at(2000)).pendingPreemptionBy == nil)
        #expect(floor.timersExpired(now: at(2500)) == [])
    }

    @Test func preemptorLeavingKeepsTheGraceWhenAnotherOutranksTheHolder() {
        var floor = preemptingFloor()
        _ = floor.request(candidate(erin, 2), memberCount: 5, now: at(1800))  // carol, erin, bob
        #expect(floor.memberLeft(carol, now: at(2000)) == [.queued(erin, position: 1), .queued(bob, position: 2)])
        #expect(floor.snapshot(now: at(2000)).pendingPreemptionBy == erin)
        #expect(floor.nextDeadline == at(2500))
        #expect(
            floor.timersExpired(now: at(2500)) == [
                .revoked(alice, .preempted), .granted(erin, talkTime: fullTalk), .taken(by: erin),
                .queued(bob, position: 1),
            ])
    }

    @Test func preemptorLoweringItsPriorityCancelsPreemption() {
        var floor = preemptingFloor()
        #expect(
            floor.request(candidate(carol, 0), memberCount: 5, now: at(2000))
                == [.queued(carol, position: 2), .queued(bob, position: 1)])
        #expect(floor.snapshot(now: at(2000)).pendingPreemptionBy == nil)
        #expect(floor.nextDeadline == at(3000))
    }

    @Test func preemptorLoweringToHolderPriorityCancelsPreemption() {
        var floor = preemptingFloor()
        #expect(floor.request(candidate(carol, 1), memberCount: 5, now: at(2000)) == [.queued(carol, position: 1)])
        #expect(floor.snapshot(now: at(2000)).pendingPreemptionBy == nil)
    }

    @Test func cancelledPreemptionCanStartAgainWithAFreshGrace() {
        var floor = preemptingFloor()
        _ = floor.release(carol, now: at(2000))
        #expect(
            floor.request(candidate(carol, 3), memberCount: 5, now: at(2200)) == [
                .queued(carol, position: 1), .queued(bob, position: 2),
                .preemptionPending(holder: alice, by: carol, grace: .seconds(1)),
            ])
        #expect(floor.nextDeadline == at(3000))  // min(T1 3000, T3 3200)
        #expect(floor.timersExpired(now: at(3000)).first == .revoked(alice, .endOfMedia))
    }

    @Test func queuedMemberOvertakingThePreemptorKeepsTheGrace() {
        var floor = preemptingFloor()
        #expect(
            floor.request(candidate(bob, 5), memberCount: 5, now: at(2000)) == [
                .queued(bob, position: 1), .queued(carol, position: 2),
            ])
        #expect(floor.nextDeadline == at(2500))
        #expect(floor.snapshot(now: at(2000)).pendingPreemptionBy == bob)
    }

    @Test func memberLeftHolderDuringGrace() {
        var floor = preemptingFloor()
        #expect(
            floor.memberLeft(alice, now: at(2000))
                == [.granted(carol, talkTime: fullTalk), .taken(by: carol), .queued(bob, position: 1)])
        #expect(floor.snapshot(now: at(2000)).pendingPreemptionBy == nil)
    }

    @Test func memberLeftOfOthersDuringGrace() {
        var floor = preemptingFloor()
        #expect(floor.memberLeft(bob, now: at(2000)) == [])
        #expect(floor.memberLeft(stranger, now: at(2000)) == [])
        #expect(floor.nextDeadline == at(2500))
    }

    @Test func releaseByLowerQueuedMemberKeepsTheGrace() {
        var floor = preemptingFloor()
        #expect(floor.release(bob, now: at(2000)) == [.queueCancelled(bob)])
        #expect(floor.release(stranger, now: at(2000)) == [])
        #expect(floor.nextDeadline == at(2500))
    }

    @Test func operatorRevokeDuringGrace() {
        var floor = preemptingFloor()
        #expect(
            floor.revoke(now: at(2000)) == [
                .revoked(alice, .revokedByOperator), .granted(carol, talkTime: fullTalk), .taken(by: carol),
                .queued(bob, position: 1),
            ])
        #expect(floor.snapshot(now: at(2000)).pendingPreemptionBy == nil)
        #expect(floor.timersExpired(now: at(2500)) == [])
    }

    @Test func zeroGracePreemptsAtTheNextTimerCall() {
        var floor = takenFloor(.init(preemptionGrace: .zero))
        #expect(
            floor.request(candidate(bob, 2), memberCount: 3, now: at(1500))
                == [.queued(bob, position: 1), .preemptionPending(holder: alice, by: bob, grace: .zero)])
        #expect(floor.nextDeadline == at(1500))
        #expect(
            floor.timersExpired(now: at(1500))
                == [.revoked(alice, .preempted), .granted(bob, talkTime: fullTalk), .taken(by: bob)])
    }

    @Test func preemptedHolderCanQueueAgain() {
        var floor = preemptingFloor()
        _ = floor.timersExpired(now: at(2500))
        #expect(
            floor.request(candidate(alice, 1), memberCount: 5, now: at(2600)) == [
                .queued(alice, position: 1), .queued(bob, position: 2),
            ])
    }
}
