import Testing

@testable import PTTCore

@Suite("Floor control: taken with a queue")
struct FloorQueueTests: FloorTesting {
    @Test func fixtureBuildsTheQueueInPriorityThenFifoOrder() {
        var floor = takenFloor()
        #expect(floor.request(candidate(bob, 0), memberCount: 5, now: at(1100)) == [.queued(bob, position: 1)])
        #expect(
            floor.request(candidate(carol, 1), memberCount: 5, now: at(1200))
                == [.queued(carol, position: 1), .queued(bob, position: 2)])
        #expect(floor.request(candidate(dave, 0), memberCount: 5, now: at(1300)) == [.queued(dave, position: 3)])
        #expect(floor.queue == [candidate(carol, 1), candidate(bob, 0), candidate(dave, 0)])
        #expect(
            floor.snapshot(now: at(1300))
                == FloorSnapshot(
                    holder: alice, holderPriority: 1, holderUrgency: .ordinary, talkTimeLeft: .milliseconds(29700),
                    queue: [carol, bob, dave], pendingPreemptionBy: nil))
        #expect(floor.position(of: carol) == 1)
        #expect(floor.position(of: dave) == 3)
        #expect(floor.position(of: alice) == nil)
        #expect(floor.nextDeadline == at(3000))
    }

    @Test func requestByHolder() {
        var floor = queuedFloor()
        #expect(
            floor.request(candidate(alice, 1), memberCount: 5, now: at(2000)) == [
                .granted(alice, talkTime: .seconds(29))
            ])
        #expect(floor.queue.map(\.member) == [carol, bob, dave])
    }

    @Test func requestByQueuedMemberIsIdempotent() {
        var floor = queuedFloor()
        #expect(floor.request(candidate(bob, 0), memberCount: 5, now: at(2000)) == [.queued(bob, position: 2)])
        #expect(floor.request(candidate(bob, 0), memberCount: 5, now: at(2100)) == [.queued(bob, position: 2)])
        #expect(floor.request(candidate(carol, 1), memberCount: 5, now: at(2200)) == [.queued(carol, position: 1)])
        #expect(floor.queue.map(\.member) == [carol, bob, dave])
    }

    @Test func idempotentRequestAtAFullLevelIsNotDenied() {
        var floor = queuedFloor(.init(queueCapacityPerPriority: 2))  // level 0 holds bob and dave
        #expect(floor.request(candidate(dave, 0), memberCount: 5, now: at(2000)) == [.queued(dave, position: 3)])
    }

    @Test func queuedMemberRaisingItsPriorityIsRepositioned() {
        var floor = queuedFloor()
        // dave 0 -> 1: behind carol (FIFO within level 1), ahead of bob.
        #expect(
            floor.request(candidate(dave, 1), memberCount: 5, now: at(2000))
                == [.queued(dave, position: 2), .queued(bob, position: 3)])
        #expect(floor.queue == [candidate(carol, 1), candidate(dave, 1), candidate(bob, 0)])
        #expect(floor.snapshot(now: at(2000)).pendingPreemptionBy == nil)
    }

    @Test func repositionedMemberGoesToTheBackOfItsNewLevel() {
        var floor = queuedFloor()
        // bob 0 -> 1 lands at position 2, the same as before: only its own answer.
        #expect(floor.request(candidate(bob, 1), memberCount: 5, now: at(2000)) == [.queued(bob, position: 2)])
        #expect(floor.queue == [candidate(carol, 1), candidate(bob, 1), candidate(dave, 0)])
    }

    @Test func queuedMemberLoweringItsPriorityIsRepositioned() {
        var floor = queuedFloor()
        #expect(
            floor.request(candidate(carol, 0), memberCount: 5, now: at(2000))
                == [.queued(carol, position: 3), .queued(bob, position: 1), .queued(dave, position: 2)])
        #expect(floor.queue.map(\.member) == [bob, dave, carol])
    }

    @Test func queuedMemberOutrankingTheHolderStartsPreemption() {
        var floor = queuedFloor()
        #expect(
            floor.request(candidate(bob, 2), memberCount: 5, now: at(2000)) == [
                .queued(bob, position: 1), .queued(carol, position: 2),
                .preemptionPending(holder: alice, by: bob, grace: .seconds(1)),
            ])
        #expect(floor.nextDeadline == at(3000))
        #expect(floor.snapshot(now: at(2000)).pendingPreemptionBy == bob)
    }

    @Test func repositioningIntoAFullLevelIsDeniedAndDropsTheRequest() {
        var floor = takenFloor(.init(queueCapacityPerPriority: 1))  // alice holds with priority 1
        _ = floor.request(candidate(carol, 1), memberCount: 5, now: at(1100))
        _ = floor.request(candidate(bob, 0), memberCount: 5, now: at(1200))
        _ = floor.request(candidate(dave, -1), memberCount: 5, now: at(1300))
        #expect(floor.queue.map(\.member) == [carol, bob, dave])
        #expect(
            floor.request(candidate(carol, 0), memberCount: 5, now: at(2000))
                == [.denied(carol, .queueFull), .queued(bob, position: 1), .queued(dave, position: 2)])
        #expect(floor.queue.map(\.member) == [bob, dave])
    }

    @Test func newLowerPriorityGoesLast() {
        var floor = queuedFloor()
        #expect(floor.request(candidate(erin, 0), memberCount: 5, now: at(2000)) == [.queued(erin, position: 4)])
    }

    @Test func newEqualPriorityGoesBehindItsLevel() {
        var floor = queuedFloor()
        #expect(
            floor.request(candidate(erin, 1), memberCount: 5, now: at(2000))
                == [.queued(erin, position: 2), .queued(bob, position: 3), .queued(dave, position: 4)])
        #expect(floor.snapshot(now: at(2000)).pendingPreemptionBy == nil)
    }

    @Test func newHigherPriorityGoesFirstAndPreempts() {
        var floor = queuedFloor()
        #expect(
            floor.request(candidate(erin, 2), memberCount: 5, now: at(2000)) == [
                .queued(erin, position: 1), .queued(carol, position: 2), .queued(bob, position: 3),
                .queued(dave, position: 4),
                .preemptionPending(holder: alice, by: erin, grace: .seconds(1)),
            ])
    }

    @Test func receiveOnly() {
        var floor = queuedFloor()
        #expect(
            floor.request(candidate(erin, 2, receiveOnly: true), memberCount: 5, now: at(2000)) == [
                .denied(erin, .receiveOnly)
            ])
        // A queued member turning receive-only is denied and keeps its place.
        #expect(
            floor.request(candidate(bob, 0, receiveOnly: true), memberCount: 5, now: at(2000)) == [
                .denied(bob, .receiveOnly)
            ])
        #expect(floor.queue.map(\.member) == [carol, bob, dave])
    }

    @Test func releaseByHolderHandsToHead() {
        var floor = queuedFloor()
        #expect(
            floor.release(alice, now: at(2000)) == [
                .granted(carol, talkTime: fullTalk), .taken(by: carol), .queued(bob, position: 1),
                .queued(dave, position: 2),
            ])
        #expect(floor.holder == carol)
        #expect(floor.nextDeadline == at(4000))
        #expect(floor.snapshot(now: at(2000)).holderPriority == 1)
    }

    @Test func releaseByQueuedHead() {
        var floor = queuedFloor()
        #expect(
            floor.release(carol, now: at(2000))
                == [.queueCancelled(carol), .queued(bob, position: 1), .queued(dave, position: 2)])
        #expect(floor.queue.map(\.member) == [bob, dave])
        #expect(floor.holder == alice)
    }

    @Test func releaseByQueuedMiddle() {
        var floor = queuedFloor()
        #expect(floor.release(bob, now: at(2000)) == [.queueCancelled(bob), .queued(dave, position: 2)])
    }

    @Test func releaseByQueuedTail() {
        var floor = queuedFloor()
        #expect(floor.release(dave, now: at(2000)) == [.queueCancelled(dave)])
        #expect(floor.queue.map(\.member) == [carol, bob])
    }

    @Test func releaseByStranger() {
        var floor = queuedFloor()
        #expect(floor.release(stranger, now: at(2000)) == [])
        #expect(floor.queue.count == 3)
    }

    @Test func mediaFromQueuedMemberDoesNothing() {
        var floor = queuedFloor()
        #expect(floor.mediaReceived(from: carol, now: at(2500)) == [])
        #expect(floor.nextDeadline == at(3000))
    }

    @Test func memberLeftHolderHandsOffWithoutRevoke() {
        var floor = queuedFloor()
        #expect(
            floor.memberLeft(alice, now: at(2000)) == [
                .granted(carol, talkTime: fullTalk), .taken(by: carol), .queued(bob, position: 1),
                .queued(dave, position: 2),
            ])
    }

    @Test func memberLeftQueuedIsSilentForItButUpdatesOthers() {
        var floor = queuedFloor()
        #expect(floor.memberLeft(carol, now: at(2000)) == [.queued(bob, position: 1), .queued(dave, position: 2)])
        #expect(floor.memberLeft(dave, now: at(2000)) == [])
        #expect(floor.queue.map(\.member) == [bob])
    }

    @Test func memberLeftStranger() {
        var floor = queuedFloor()
        #expect(floor.memberLeft(stranger, now: at(2000)) == [])
    }

    @Test func operatorRevokeHandsOff() {
        var floor = queuedFloor()
        #expect(
            floor.revoke(now: at(2000)) == [
                .revoked(alice, .revokedByOperator), .granted(carol, talkTime: fullTalk), .taken(by: carol),
                .queued(bob, position: 1), .queued(dave, position: 2),
            ])
    }

    @Test func t1ExpiryHandsOff() {
        var floor = queuedFloor()
        #expect(floor.timersExpired(now: at(2999)) == [])
        #expect(
            floor.timersExpired(now: at(3000)) == [
                .revoked(alice, .endOfMedia), .granted(carol, talkTime: fullTalk), .taken(by: carol),
                .queued(bob, position: 1), .queued(dave, position: 2),
            ])
        #expect(floor.nextDeadline == at(5000))
    }

    @Test func chainOfHandOffsInPriorityThenFifoOrder() {
        var floor = idleFloor()
        #expect(
            floor.request(candidate(alice, 9), memberCount: 6, now: at(1000))
                == [.granted(alice, talkTime: fullTalk), .taken(by: alice)])
        #expect(floor.request(candidate(bob, 1), memberCount: 6, now: at(1100)) == [.queued(bob, position: 1)])
        #expect(
            floor.request(candidate(carol, 3), memberCount: 6, now: at(1200))
                == [.queued(carol, position: 1), .queued(bob, position: 2)])
        #expect(floor.request(candidate(dave, 1), memberCount: 6, now: at(1300)) == [.queued(dave, position: 3)])
        #expect(
            floor.request(candidate(erin, 3), memberCount: 6, now: at(1400))
                == [.queued(erin, position: 2), .queued(bob, position: 3), .queued(dave, position: 4)])
        #expect(
            floor.request(candidate(frank, 2), memberCount: 6, now: at(1500))
                == [.queued(frank, position: 3), .queued(bob, position: 4), .queued(dave, position: 5)])
        #expect(floor.queue.map(\.member) == [carol, erin, frank, bob, dave])

        #expect(
            floor.release(alice, now: at(2000)) == [
                .granted(carol, talkTime: fullTalk), .taken(by: carol),
                .queued(erin, position: 1), .queued(frank, position: 2), .queued(bob, position: 3),
                .queued(dave, position: 4),
            ])
        #expect(
            floor.revoke(now: at(3000)) == [
                .revoked(carol, .revokedByOperator), .granted(erin, talkTime: fullTalk), .taken(by: erin),
                .queued(frank, position: 1), .queued(bob, position: 2), .queued(dave, position: 3),
            ])
        #expect(
            floor.timersExpired(now: at(5000)) == [
                .revoked(erin, .endOfMedia), .granted(frank, talkTime: fullTalk), .taken(by: frank),
                .queued(bob, position: 1), .queued(dave, position: 2),
            ])
        #expect(
            floor.memberLeft(frank, now: at(5500)) == [
                .granted(bob, talkTime: fullTalk), .taken(by: bob), .queued(dave, position: 1),
            ])
        #expect(floor.release(bob, now: at(6000)) == [.granted(dave, talkTime: fullTalk), .taken(by: dave)])
        #expect(floor.queue.isEmpty)
        #expect(floor.release(dave, now: at(7000)) == [.idle])
        #expect(floor.isIdle)
        #expect(floor.nextDeadline == nil)
    }
}
