import Testing

@testable import PTTCore

/// After a voluntary release, the former holder's late audio (packets the release overtook, reports already on
/// their way) is no implicit floor request for ``FloorControl/releaseGrace``: it would take the floor again and
/// wake everyone a second time.
@Suite("Floor control: the grace after a release")
struct FloorReleaseGraceTests: FloorTesting {
    // takenFloor: alice (1) holds since 1000; T1 due at 3000, T2 at 31000. The grace is 500 ms.

    @Test func lateAudioFromTheFormerHolderIsNoImplicitRequest() {
        var floor = takenFloor()
        #expect(floor.release(alice, now: at(2000)) == [.idle])
        #expect(floor.releaseGrace == FloorControl.ReleaseGrace(member: alice, until: at(2500)))
        #expect(floor.talkHeard(from: candidate(alice, 1), memberCount: 5, implicitRequest: true, now: at(2000)) == [])
        #expect(floor.talkHeard(from: candidate(alice, 1), memberCount: 5, implicitRequest: true, now: at(2499)) == [])
        #expect(floor.isIdle)
        #expect(floor.nextDeadline == nil, "no floor timer runs on an idle floor")
    }

    @Test func afterTheGraceTheFormerHolderTalkingTakesTheFloorAgain() {
        var floor = takenFloor()
        _ = floor.release(alice, now: at(2000))
        #expect(
            floor.talkHeard(from: candidate(alice, 1), memberCount: 5, implicitRequest: true, now: at(2500))
                == [.granted(alice, talkTime: fullTalk), .taken(by: alice)])
        #expect(floor.releaseGrace == nil)
    }

    @Test func anotherMemberTalkingDuringTheGraceTakesTheFloor() {
        var floor = takenFloor()
        _ = floor.release(alice, now: at(2000))
        #expect(
            floor.talkHeard(from: candidate(bob), memberCount: 5, implicitRequest: true, now: at(2100))
                == [.granted(bob, talkTime: fullTalk), .taken(by: bob)])
        #expect(floor.releaseGrace == nil, "the grace ends when someone else holds the floor")
    }

    @Test func anExplicitRequestFromTheFormerHolderIsGrantedAtOnce() {
        var floor = takenFloor()
        _ = floor.release(alice, now: at(2000))
        #expect(
            floor.request(candidate(alice, 1), memberCount: 5, now: at(2100))
                == [.granted(alice, talkTime: fullTalk), .taken(by: alice)])
        #expect(floor.releaseGrace == nil)
    }

    @Test func aHandOffToTheQueueLeavesNoGrace() {
        var floor = queuedFloor()
        _ = floor.release(alice, now: at(2000))
        #expect(floor.holder == carol)
        #expect(floor.releaseGrace == nil)
    }

    @Test func aRevokeLeavesAGraceWithoutForwardingADepartureNone() {
        var revoked = takenFloor()
        _ = revoked.revoke(now: at(2000))
        #expect(revoked.releaseGrace == FloorControl.ReleaseGrace(member: alice, until: at(2500), afterRevoke: true))
        var expired = takenFloor()
        _ = expired.timersExpired(now: at(3000))
        #expect(expired.releaseGrace == FloorControl.ReleaseGrace(member: alice, until: at(3500), afterRevoke: true))
        var left = takenFloor()
        _ = left.memberLeft(alice, now: at(2000))
        #expect(left.releaseGrace == nil)
        #expect(
            left.talkHeard(from: candidate(alice, 1), memberCount: 5, implicitRequest: true, now: at(2100))
                == [.granted(alice, talkTime: fullTalk), .taken(by: alice)])
    }

    @Test func theTimerAtTheGracesEndClearsIt() {
        var floor = takenFloor()
        _ = floor.release(alice, now: at(2000))
        #expect(floor.timersExpired(now: at(2499)) == [])
        #expect(floor.releaseGrace != nil)
        #expect(floor.timersExpired(now: at(2500)) == [])
        #expect(floor.releaseGrace == nil)
    }

    @Test func aFloorInItsGraceTakesAReloadsSettingsForTheNextGrant() {
        var floor = takenFloor()
        var shorter = floor.configuration
        shorter.maxTalkTime = .milliseconds(1500)
        let adoptedWhileTaken = floor.adopt(shorter)
        #expect(!adoptedWhileTaken, "a taken floor keeps its own settings")
        _ = floor.release(alice, now: at(2000))
        let adoptedWhileIdle = floor.adopt(shorter)
        #expect(adoptedWhileIdle)
        #expect(
            floor.request(candidate(alice, 1), memberCount: 5, now: at(2100))
                == [.granted(alice, talkTime: .milliseconds(1500)), .taken(by: alice)])
    }

    // MARK: After a revocation

    @Test func aRevokedHolderStillTalkingDoesNotTakeTheFloorBackUntilSilent() {
        var floor = takenFloor()
        #expect(floor.revoke(now: at(2000)) == [.revoked(alice, .revokedByOperator), .idle])
        #expect(floor.releaseGrace == FloorControl.ReleaseGrace(member: alice, until: at(2500), afterRevoke: true))
        // Its packets keep coming (its app has not let go): each moves the grace on, so none is a request.
        for ms in stride(from: 2100, through: 4000, by: 100) {
            #expect(
                floor.talkHeard(from: candidate(alice, 1), memberCount: 5, implicitRequest: true, now: at(ms)) == [])
        }
        #expect(floor.isIdle)
        #expect(floor.releaseGrace?.until == at(4500))
        // Silent for the grace: talking again is a new request.
        #expect(floor.timersExpired(now: at(4500)) == [])
        #expect(floor.releaseGrace == nil)
        #expect(
            floor.talkHeard(from: candidate(alice, 1), memberCount: 5, implicitRequest: true, now: at(4600))
                == [.granted(alice, talkTime: fullTalk), .taken(by: alice)])
    }

    @Test func aHolderRevokedByEndOfMediaIsNotRegrantedByItsLateReports() {
        var floor = takenFloor()
        #expect(floor.timersExpired(now: at(3000)) == [.revoked(alice, .endOfMedia), .idle])
        #expect(floor.talkHeard(from: candidate(alice, 1), memberCount: 5, implicitRequest: true, now: at(3100)) == [])
        #expect(floor.isIdle, "a report the relay made before T1 fired, arriving after it")
    }

    @Test func aRevokedMemberMayAskAgainAndOthersMayTalk() {
        var floor = takenFloor()
        _ = floor.revoke(now: at(2000))
        #expect(
            floor.request(candidate(alice, 1), memberCount: 5, now: at(2100))
                == [.granted(alice, talkTime: fullTalk), .taken(by: alice)], "an explicit request is a new press")
        _ = floor.revoke(now: at(2200))
        #expect(
            floor.talkHeard(from: candidate(bob), memberCount: 5, implicitRequest: true, now: at(2300))
                == [.granted(bob, talkTime: fullTalk), .taken(by: bob)])
    }

    @Test func theGraceIsTheConfigured() {
        var floor = takenFloor(FloorConfiguration(releaseGrace: .milliseconds(1200)))
        _ = floor.release(alice, now: at(2000))
        #expect(floor.releaseGrace == FloorControl.ReleaseGrace(member: alice, until: at(3200)))
        #expect(floor.talkHeard(from: candidate(alice, 1), memberCount: 5, implicitRequest: true, now: at(3199)) == [])
        var revoked = takenFloor(FloorConfiguration(releaseGrace: .milliseconds(1200)))
        _ = revoked.revoke(now: at(2000))
        #expect(revoked.releaseGrace == FloorControl.ReleaseGrace(member: alice, until: at(3200), afterRevoke: true))
    }

    @Test func aGraceOfZeroTurnsItOff() {
        var floor = takenFloor(FloorConfiguration(releaseGrace: .zero))
        _ = floor.release(alice, now: at(2000))
        #expect(
            floor.talkHeard(from: candidate(alice, 1), memberCount: 5, implicitRequest: true, now: at(2000))
                == [.granted(alice, talkTime: fullTalk), .taken(by: alice)])
    }
}
