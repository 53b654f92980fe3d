import Testing

@testable import PTTCore

// MARK: - Idle

@Suite("Floor control: idle")
struct FloorIdleTests: FloorTesting {
    @Test func startsIdle() {
        let floor = idleFloor()
        #expect(floor.holder == nil)
        #expect(floor.isIdle)
        #expect(floor.queue.isEmpty)
        #expect(floor.nextDeadline == nil)
        #expect(floor.talkTimeLeft(now: at(0)) == nil)
        #expect(floor.snapshot(now: at(0)) == FloorSnapshot())
        #expect(floor.configuration == FloorConfiguration())
    }

    @Test func requestIsGranted() {
        var floor = idleFloor()
        #expect(
            floor.request(candidate(alice, 2), memberCount: 3, now: at(1000))
                == [.granted(alice, talkTime: fullTalk), .taken(by: alice)])
        #expect(floor.holder == alice)
        #expect(!floor.isIdle)
        #expect(floor.queue.isEmpty)
        #expect(floor.nextDeadline == at(3000))  // T1 from the grant
        #expect(floor.talkTimeLeft(now: at(1000)) == fullTalk)
        #expect(floor.talkTimeLeft(now: at(11000)) == .seconds(20))
        #expect(floor.talkTimeLeft(now: at(40000)) == .zero)
        #expect(
            floor.snapshot(now: at(1500))
                == FloorSnapshot(
                    holder: alice, holderPriority: 2, holderUrgency: .ordinary, talkTimeLeft: .milliseconds(29500),
                    queue: [],
                    pendingPreemptionBy: nil))
    }

    @Test func grantUsesConfiguredTalkTime() {
        var floor = idleFloor(.init(endOfMediaTimeout: .milliseconds(700), maxTalkTime: .seconds(5)))
        #expect(
            floor.request(candidate(alice), memberCount: 2, now: at(1000))
                == [.granted(alice, talkTime: .seconds(5)), .taken(by: alice)])
        #expect(floor.nextDeadline == at(1700))
    }

    @Test func receiveOnlyIsDenied() {
        var floor = idleFloor()
        #expect(
            floor.request(candidate(alice, 9, receiveOnly: true), memberCount: 3, now: at(1000))
                == [.denied(alice, .receiveOnly)])
        #expect(floor.isIdle)
        #expect(floor.nextDeadline == nil)
    }

    @Test func receiveOnlyIsCheckedBeforeSingleMember() {
        var floor = idleFloor(.init(grantToSingleMember: false))
        #expect(
            floor.request(candidate(alice, receiveOnly: true), memberCount: 1, now: at(1000))
                == [.denied(alice, .receiveOnly)])
    }

    @Test(arguments: [Int.min, -1, 0, 1])
    func singleMemberGrantedWhenAllowed(memberCount: Int) {
        var floor = idleFloor(.init(grantToSingleMember: true))
        #expect(
            floor.request(candidate(alice), memberCount: memberCount, now: at(1000))
                == [.granted(alice, talkTime: fullTalk), .taken(by: alice)])
        #expect(floor.holder == alice)
    }

    @Test(arguments: [Int.min, -1, 0, 1])
    func singleMemberDeniedWhenNotAllowed(memberCount: Int) {
        var floor = idleFloor(.init(grantToSingleMember: false))
        #expect(
            floor.request(candidate(alice), memberCount: memberCount, now: at(1000))
                == [.denied(alice, .onlyOneParticipant)])
        #expect(floor.isIdle)
        #expect(floor.nextDeadline == nil)
    }

    @Test(arguments: [2, 3, Int.max])
    func twoOrMoreMembersGrantedWhenSingleNotAllowed(memberCount: Int) {
        var floor = idleFloor(.init(grantToSingleMember: false))
        #expect(
            floor.request(candidate(alice), memberCount: memberCount, now: at(1000))
                == [.granted(alice, talkTime: fullTalk), .taken(by: alice)])
    }

    @Test func capacityZeroStillGrantsWhenIdle() {
        var floor = idleFloor(.init(queueCapacityPerPriority: 0))
        #expect(
            floor.request(candidate(alice), memberCount: 2, now: at(1000))
                == [.granted(alice, talkTime: fullTalk), .taken(by: alice)])
    }

    @Test func otherEventsDoNothing() {
        var floor = idleFloor()
        #expect(floor.release(alice, now: at(1000)) == [])
        #expect(floor.mediaReceived(from: alice, now: at(1000)) == [])
        #expect(floor.memberLeft(alice, now: at(1000)) == [])
        #expect(floor.revoke(now: at(1000)) == [])
        #expect(floor.timersExpired(now: at(1000)) == [])
        #expect(floor.timersExpired(now: at(1_000_000)) == [])
        #expect(floor.isIdle)
        #expect(floor.nextDeadline == nil)
    }

    @Test func mediaWhileIdleDoesNotCarryIntoALaterGrant() {
        var floor = idleFloor()
        _ = floor.mediaReceived(from: alice, now: at(5000))
        _ = floor.request(candidate(alice), memberCount: 2, now: at(6000))
        #expect(floor.nextDeadline == at(8000))
    }
}

// MARK: - Taken
