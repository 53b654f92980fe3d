import Testing

@testable import PTTCore

/// Emergencies and imminent perils on the floor (issue 25): more urgent than the holder, a
/// request takes the floor at once; of the same urgency, the ordinary rules.
@Suite("Floor control: emergency and imminent peril")
struct FloorEmergencyTests: FloorTesting {
    func urgent(_ member: MemberID, _ urgency: FloorUrgency, _ priority: Int = 0) -> FloorCandidate {
        FloorCandidate(member: member, priority: priority, urgency: urgency)
    }

    @Test func anEmergencyTakesAHigherPriorityHoldersFloorAtOnceWithNoGrace() {
        var floor = takenFloor()  // alice (1) since 1000
        let actions = floor.request(urgent(bob, .emergency, -5), memberCount: 5, now: at(1200))
        #expect(actions == [.revoked(alice, .emergency), .granted(bob, talkTime: fullTalk), .taken(by: bob)])
        #expect(floor.holder == bob)
        #expect(floor.queue.isEmpty)
        #expect(floor.snapshot(now: at(1200)).holderUrgency == .emergency)
        // Full T1 and T2 from the seizure: no pre-emption timer left over.
        #expect(floor.nextDeadline == at(3200))
    }

    @Test func theQueueStaysAndTheSeizerLeavesItsPlaceInIt() {
        var floor = queuedFloor()  // alice (1) holds; carol (1), bob (0), dave (0) wait
        let actions = floor.request(urgent(bob, .emergency), memberCount: 5, now: at(1400))
        #expect(
            actions == [
                .revoked(alice, .emergency), .granted(bob, talkTime: fullTalk), .taken(by: bob),
                .queued(dave, position: 2),
            ])
        #expect(floor.queue.map(\.member) == [carol, dave])
        // The former holder is not queued: it asks again, behind the members already waiting at its rank.
        #expect(
            floor.request(candidate(alice, 1), memberCount: 5, now: at(1500))
                == [.queued(alice, position: 2), .queued(dave, position: 3)])
    }

    @Test func anImminentPerilTakesAnOrdinaryFloorButWaitsBehindAnEmergency() {
        var floor = takenFloor()
        #expect(
            floor.request(urgent(carol, .imminentPeril), memberCount: 5, now: at(1100))
                == [.revoked(alice, .emergency), .granted(carol, talkTime: fullTalk), .taken(by: carol)])
        #expect(
            floor.request(urgent(bob, .emergency), memberCount: 5, now: at(1200))
                == [.revoked(carol, .emergency), .granted(bob, talkTime: fullTalk), .taken(by: bob)])
        // Less urgent than the emergency: queued, first (above every ordinary priority), and no pre-emption.
        #expect(floor.request(candidate(dave, 1000), memberCount: 5, now: at(1300)) == [.queued(dave, position: 1)])
        #expect(
            floor.request(urgent(carol, .imminentPeril), memberCount: 5, now: at(1400))
                == [.queued(carol, position: 1), .queued(dave, position: 2)])
        #expect(floor.snapshot(now: at(1400)).pendingPreemptionBy == nil)
        // When the emergency lets go, the peril comes first.
        #expect(
            floor.release(bob, now: at(1500))
                == [.granted(carol, talkTime: fullTalk), .taken(by: carol), .queued(dave, position: 1)])
    }

    @Test func aHolderThatDeclaresKeepsTheFloorAndAPendingPreemptionIsDropped() {
        var floor = takenFloor()  // alice (1) since 1000
        _ = floor.request(candidate(bob, 5), memberCount: 5, now: at(1100))  // higher priority: T3 runs for bob
        #expect(floor.snapshot(now: at(1100)).pendingPreemptionBy == bob)
        #expect(
            floor.request(urgent(alice, .emergency, 1), memberCount: 5, now: at(1200)).first
                == .granted(alice, talkTime: fullTalk - .milliseconds(200)))
        #expect(floor.snapshot(now: at(1200)).holderUrgency == .emergency)
        #expect(floor.snapshot(now: at(1200)).pendingPreemptionBy == nil)
        // T3 would have ended here: alice still holds, bob still waits.
        #expect(floor.timersExpired(now: at(2200)).isEmpty)
        #expect(floor.holder == alice)
        #expect(floor.queue.map(\.member) == [bob])
    }

    @Test func twoEmergenciesFollowTheOrdinaryRulesBetweenThem() {
        var floor = idleFloor()
        _ = floor.request(urgent(alice, .emergency, 0), memberCount: 5, now: at(1000))
        // Same urgency, higher priority: queued, and the grace (T3) starts, as for any higher priority.
        #expect(
            floor.request(urgent(bob, .emergency, 5), memberCount: 5, now: at(1100))
                == [
                    .queued(bob, position: 1),
                    .preemptionPending(holder: alice, by: bob, grace: .seconds(1)),
                ])
        #expect(floor.timersExpired(now: at(2100)).first == .revoked(alice, .preempted))
        #expect(floor.holder == bob)
    }

    @Test func aReceiveOnlyMemberIsDeniedEvenInAnEmergency() {
        var floor = takenFloor()
        let member = FloorCandidate(member: erin, receiveOnly: true, urgency: .emergency)
        #expect(floor.request(member, memberCount: 5, now: at(1100)) == [.denied(erin, .receiveOnly)])
        #expect(floor.holder == alice)
    }

    @Test func anEmergencyOnAnIdleFloorIsAnOrdinaryGrant() {
        var floor = idleFloor()
        #expect(
            floor.request(urgent(alice, .emergency), memberCount: 5, now: at(1000))
                == [.granted(alice, talkTime: fullTalk), .taken(by: alice)])
    }

    @Test func theHolderDeclaringAnEmergencyKeepsItsFloorAndIsToldItsTimeLeft() {
        var floor = takenFloor()
        #expect(
            floor.request(urgent(alice, .emergency, 1), memberCount: 5, now: at(2000))
                == [.granted(alice, talkTime: .seconds(29))])
    }

    @Test func aBroadcastTakesAnOrdinaryFloorWithItsOwnCauseAndGivesWayToAnImminentPeril() {
        var floor = takenFloor()  // alice (1)
        #expect(
            floor.request(urgent(bob, .broadcast, -5), memberCount: 5, now: at(1100))
                == [.revoked(alice, .broadcast), .granted(bob, talkTime: fullTalk), .taken(by: bob)])
        #expect(
            floor.request(urgent(carol, .imminentPeril), memberCount: 5, now: at(1200))
                == [.revoked(bob, .emergency), .granted(carol, talkTime: fullTalk), .taken(by: carol)])
        // An operator's revoke names its cause; a broadcast that starts elsewhere names its own.
        #expect(floor.revoke(now: at(1300), cause: .broadcast) == [.revoked(carol, .broadcast), .idle])
    }
}
