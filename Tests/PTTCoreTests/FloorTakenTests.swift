import Testing

@testable import PTTCore

// MARK: - Idle

@Suite("Floor control: taken")
struct FloorTakenTests: FloorTesting {
    @Test func requestByHolderReportsRemainingTalkTime() {
        var floor = takenFloor()
        #expect(
            floor.request(candidate(alice, 1), memberCount: 5, now: at(5000)) == [
                .granted(alice, talkTime: .seconds(26))
            ])
        #expect(floor.holder == alice)
        #expect(floor.nextDeadline == at(3000))  // T1 not restarted by a request
        #expect(floor.queue.isEmpty)
    }

    @Test func requestByHolderWithOtherPriorityChangesNothing() {
        var floor = takenFloor()
        #expect(
            floor.request(candidate(alice, 7), memberCount: 1, now: at(2000)) == [
                .granted(alice, talkTime: .seconds(29))
            ])
        #expect(floor.snapshot(now: at(2000)).holderPriority == 1)
    }

    @Test func requestByHolderAfterT2ReportsZero() {
        var floor = takenFloor()
        #expect(
            floor.request(candidate(alice, 1), memberCount: 5, now: at(40000)) == [.granted(alice, talkTime: .zero)])
    }

    @Test func receiveOnlyHolderRequestIsDeniedAndKeepsTheFloor() {
        var floor = takenFloor()
        #expect(
            floor.request(candidate(alice, 1, receiveOnly: true), memberCount: 5, now: at(2000))
                == [.denied(alice, .receiveOnly)])
        #expect(floor.holder == alice)
    }

    @Test func lowerPriorityIsQueued() {
        var floor = takenFloor()
        #expect(floor.request(candidate(bob, 0), memberCount: 5, now: at(1500)) == [.queued(bob, position: 1)])
        #expect(floor.queue == [candidate(bob, 0)])
        #expect(floor.snapshot(now: at(1500)).pendingPreemptionBy == nil)
        #expect(floor.nextDeadline == at(3000))
    }

    @Test func equalPriorityIsQueuedWithoutPreemption() {
        var floor = takenFloor()
        #expect(floor.request(candidate(bob, 1), memberCount: 5, now: at(1500)) == [.queued(bob, position: 1)])
        #expect(floor.snapshot(now: at(1500)).pendingPreemptionBy == nil)
        #expect(floor.nextDeadline == at(3000))
    }

    @Test func higherPriorityStartsPreemption() {
        var floor = takenFloor()
        #expect(
            floor.request(candidate(bob, 2), memberCount: 5, now: at(1500))
                == [.queued(bob, position: 1), .preemptionPending(holder: alice, by: bob, grace: .seconds(1))])
        #expect(floor.snapshot(now: at(1500)).pendingPreemptionBy == bob)
        #expect(floor.nextDeadline == at(2500))
    }

    @Test func receiveOnlyIsDeniedWhileTaken() {
        var floor = takenFloor()
        #expect(
            floor.request(candidate(bob, 5, receiveOnly: true), memberCount: 5, now: at(1500))
                == [.denied(bob, .receiveOnly)])
        #expect(floor.queue.isEmpty)
        #expect(floor.nextDeadline == at(3000))
    }

    @Test func memberCountIsIrrelevantWhileTaken() {
        var floor = takenFloor(.init(grantToSingleMember: false))
        #expect(floor.request(candidate(bob), memberCount: 1, now: at(1500)) == [.queued(bob, position: 1)])
    }

    @Test(arguments: [0, 1, 2])
    func capacityZeroDeniesEveryPriority(priority: Int) {
        var floor = takenFloor(.init(queueCapacityPerPriority: 0))
        #expect(
            floor.request(candidate(bob, priority), memberCount: 5, now: at(1500))
                == [.denied(bob, .anotherMemberHasPermission)])
        #expect(floor.queue.isEmpty)
        #expect(floor.nextDeadline == at(3000))  // no pre-emption either
    }

    @Test func negativeCapacityActsLikeZero() {
        var floor = takenFloor(.init(queueCapacityPerPriority: -3))
        #expect(
            floor.request(candidate(bob), memberCount: 5, now: at(1500)) == [.denied(bob, .anotherMemberHasPermission)])
    }

    @Test func queueFullIsPerPriority() {
        var floor = takenFloor(.init(queueCapacityPerPriority: 2))
        #expect(floor.request(candidate(bob, 0), memberCount: 6, now: at(1100)) == [.queued(bob, position: 1)])
        #expect(floor.request(candidate(carol, 0), memberCount: 6, now: at(1200)) == [.queued(carol, position: 2)])
        #expect(floor.request(candidate(dave, 0), memberCount: 6, now: at(1300)) == [.denied(dave, .queueFull)])
        #expect(
            floor.request(candidate(erin, 1), memberCount: 6, now: at(1400))
                == [.queued(erin, position: 1), .queued(bob, position: 2), .queued(carol, position: 3)])
        #expect(
            floor.request(candidate(frank, 1), memberCount: 6, now: at(1500))
                == [.queued(frank, position: 2), .queued(bob, position: 3), .queued(carol, position: 4)])
        #expect(floor.request(candidate(dave, 1), memberCount: 6, now: at(1600)) == [.denied(dave, .queueFull)])
        #expect(floor.queue.map(\.member) == [erin, frank, bob, carol])
        // A freed slot can be taken again.
        #expect(floor.release(bob, now: at(1700)) == [.queueCancelled(bob), .queued(carol, position: 3)])
        #expect(floor.request(candidate(dave, 0), memberCount: 6, now: at(1800)) == [.queued(dave, position: 4)])
    }

    @Test func queueFullAtHigherPriorityDoesNotPreempt() {
        var floor = takenFloor(.init(queueCapacityPerPriority: 1))
        _ = floor.request(candidate(bob, 5), memberCount: 5, now: at(1100))
        #expect(floor.request(candidate(carol, 5), memberCount: 5, now: at(1200)) == [.denied(carol, .queueFull)])
        #expect(floor.nextDeadline == at(2100))  // still bob's T3
    }

    @Test func releaseByHolderGoesIdle() {
        var floor = takenFloor()
        #expect(floor.release(alice, now: at(2000)) == [.idle])
        #expect(floor.isIdle)
        #expect(floor.nextDeadline == nil)
        #expect(floor.talkTimeLeft(now: at(2000)) == nil)
    }

    @Test func releaseByStrangerDoesNothing() {
        var floor = takenFloor()
        #expect(floor.release(stranger, now: at(2000)) == [])
        #expect(floor.holder == alice)
        #expect(floor.nextDeadline == at(3000))
    }

    @Test func mediaByHolderRestartsT1() {
        var floor = takenFloor()
        #expect(floor.mediaReceived(from: alice, now: at(2500)) == [])
        #expect(floor.nextDeadline == at(4500))
        #expect(floor.timersExpired(now: at(3000)) == [])
        #expect(floor.timersExpired(now: at(4499)) == [])
        #expect(floor.timersExpired(now: at(4500)) == [.revoked(alice, .endOfMedia), .idle])
    }

    @Test func mediaByOthersDoesNotRestartT1() {
        var floor = takenFloor()
        _ = floor.request(candidate(bob), memberCount: 5, now: at(1100))
        #expect(floor.mediaReceived(from: bob, now: at(2500)) == [])
        #expect(floor.mediaReceived(from: stranger, now: at(2600)) == [])
        #expect(floor.nextDeadline == at(3000))
        #expect(
            floor.timersExpired(now: at(3000))
                == [.revoked(alice, .endOfMedia), .granted(bob, talkTime: fullTalk), .taken(by: bob)])
    }

    @Test func memberLeftHolderGoesIdleWithoutRevoke() {
        var floor = takenFloor()
        #expect(floor.memberLeft(alice, now: at(2000)) == [.idle])
        #expect(floor.isIdle)
    }

    @Test func memberLeftStrangerDoesNothing() {
        var floor = takenFloor()
        #expect(floor.memberLeft(stranger, now: at(2000)) == [])
        #expect(floor.holder == alice)
    }

    @Test func operatorRevoke() {
        var floor = takenFloor()
        #expect(floor.revoke(now: at(2000)) == [.revoked(alice, .revokedByOperator), .idle])
        #expect(floor.isIdle)
        #expect(floor.revoke(now: at(2100)) == [])
    }

    @Test func holderMayRequestAgainAfterLosingTheFloor() {
        var floor = takenFloor()
        _ = floor.timersExpired(now: at(3000))
        #expect(
            floor.request(candidate(alice, 1), memberCount: 5, now: at(3100))
                == [.granted(alice, talkTime: fullTalk), .taken(by: alice)])
        #expect(floor.nextDeadline == at(5100))
    }
}
