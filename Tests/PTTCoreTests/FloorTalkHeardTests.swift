import Testing

@testable import PTTCore

@Suite("Floor control: talk heard by the relay")
struct FloorTalkHeardTests: FloorTesting {
    // takenFloor: alice (1) holds since 1000; T1 due at 3000, T2 at 31000.

    @Test(arguments: [true, false])
    func fromTheHolderRestartsT1(implicitRequest: Bool) {
        var floor = takenFloor()
        #expect(
            floor.talkHeard(from: candidate(alice, 1), memberCount: 5, implicitRequest: implicitRequest, now: at(2500))
                == [])
        #expect(floor.holder == alice)
        #expect(floor.nextDeadline == at(4500))
        #expect(floor.talkTimeLeft(now: at(2500)) == .milliseconds(28500))
    }

    @Test func fromTheHolderIgnoresItsCandidateFlags() {
        // Media from the holder is only media: a changed priority or receive-only flag does not re-request.
        var floor = takenFloor()
        #expect(
            floor.talkHeard(
                from: candidate(alice, 7, receiveOnly: true), memberCount: 1, implicitRequest: true, now: at(2500))
                == [])
        #expect(floor.holder == alice)
        #expect(floor.nextDeadline == at(4500))
        #expect(floor.snapshot(now: at(2500)).holderPriority == 1)
    }

    @Test func onAnIdleFloorIsAnImplicitRequest() {
        var floor = idleFloor()
        #expect(
            floor.talkHeard(from: candidate(alice, 2), memberCount: 3, implicitRequest: true, now: at(1000))
                == [.granted(alice, talkTime: fullTalk), .taken(by: alice)])
        #expect(floor.holder == alice)
        #expect(floor.nextDeadline == at(3000))
        #expect(floor.snapshot(now: at(1000)).holderPriority == 2)
    }

    @Test(arguments: [-1, 0, 1, 2])
    func implicitRequestFollowsTheSingleMemberRule(memberCount: Int) {
        let configuration = FloorConfiguration(grantToSingleMember: false)
        var heard = idleFloor(configuration)
        var requested = idleFloor(configuration)
        let actions = heard.talkHeard(
            from: candidate(alice), memberCount: memberCount, implicitRequest: true, now: at(1000))
        #expect(actions == requested.request(candidate(alice), memberCount: memberCount, now: at(1000)))
        #expect(
            actions
                == (memberCount < 2
                    ? [.denied(alice, .onlyOneParticipant)]
                    : [.granted(alice, talkTime: fullTalk), .taken(by: alice)]))
        #expect(heard.holder == requested.holder)
    }

    @Test func onAnIdleFloorWithoutImplicitRequestsDoesNothing() {
        var floor = idleFloor()
        #expect(floor.talkHeard(from: candidate(alice, 2), memberCount: 3, implicitRequest: false, now: at(1000)) == [])
        #expect(floor.isIdle)
        #expect(floor.nextDeadline == nil)
        #expect(floor.state == .idle)
    }

    @Test func fromAReceiveOnlyMemberOnAnIdleFloorIsNeitherGrantedNorDenied() {
        var floor = idleFloor()
        #expect(
            floor.talkHeard(
                from: candidate(erin, receiveOnly: true), memberCount: 3, implicitRequest: true, now: at(1000))
                == [])
        #expect(floor.isIdle)
        #expect(floor.nextDeadline == nil)
    }

    @Test(arguments: [true, false])
    func whileSomeoneElseHoldsNothingHappens(implicitRequest: Bool) {
        var floor = takenFloor()
        // bob outranks alice, yet talking is no request: no queueing, no pre-emption, no T1 restart.
        #expect(
            floor.talkHeard(from: candidate(bob, 5), memberCount: 5, implicitRequest: implicitRequest, now: at(2500))
                == [])
        #expect(floor.holder == alice)
        #expect(floor.queue.isEmpty)
        #expect(floor.nextDeadline == at(3000))
        #expect(floor.snapshot(now: at(2500)).pendingPreemptionBy == nil)
    }

    @Test func fromAQueuedMemberNothingHappens() {
        var floor = queuedFloor()
        let queue = floor.queue
        #expect(floor.talkHeard(from: candidate(bob, 0), memberCount: 5, implicitRequest: true, now: at(2000)) == [])
        #expect(floor.queue == queue)
        #expect(floor.holder == alice)
        #expect(floor.nextDeadline == at(3000))
    }

    @Test func afterTheFloorGoesIdleTheNextTalkerTakesIt() {
        var floor = takenFloor()
        _ = floor.release(alice, now: at(2000))
        #expect(
            floor.talkHeard(from: candidate(bob), memberCount: 5, implicitRequest: true, now: at(2100))
                == [.granted(bob, talkTime: fullTalk), .taken(by: bob)])
        #expect(floor.talkHeard(from: candidate(bob), memberCount: 5, implicitRequest: true, now: at(3000)) == [])
        #expect(floor.nextDeadline == at(5000))
    }
}
