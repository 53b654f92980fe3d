import Testing

@testable import PTTCore

@Suite("Channel ownership: requests waiting for an owner, and isolation")
struct ChannelOwnershipWaitingTests: OwnershipTesting {
    @Test func aRequestWithNoKnownOwnerWaitsAndAsksForARound() {
        var ownership = Ownership(node: "n1")
        #expect(ownership.floorRequested(by: 1, member: alice, in: deck, now: at(100)) == [.askRound])
        #expect(ownership.waitingRequests == 1)
        #expect(ownership.nextDeadline == at(3100))
    }

    @Test func theRoundThatNamesThisNodeDecidesTheWaitingRequestsHere() {
        var ownership = Ownership(node: "n1")
        _ = ownership.floorRequested(by: 1, member: alice, in: deck, now: at(100))
        _ = ownership.floorRequested(by: 2, member: bob, in: deck, now: at(150))
        let actions = ownership.roundRead(owners: [deck: "n1"], liveNodes: ["n1"], now: at(300))
        #expect(
            actions == [
                .ownerChanged(deck, from: nil, to: "n1"), .adoptFloor(deck), .decideLocally(deck, 1),
                .decideLocally(deck, 2),
            ])
        #expect(ownership.waitingRequests == 0)
    }

    @Test func theRoundThatNamesAnotherNodeForwardsTheWaitingRequests() {
        var ownership = Ownership(node: "n1")
        _ = ownership.floorRequested(by: 1, member: alice, in: deck, now: at(100))
        let actions = ownership.roundRead(owners: [deck: "n2"], liveNodes: ["n1", "n2"], now: at(300))
        #expect(
            actions == [
                .ownerChanged(deck, from: nil, to: "n2"), .forward(FloorTicket(1), deck, member: alice, to: "n2"),
            ])
        #expect(ownership.nextDeadline == at(3300))
    }

    @Test func aWaitingRequestFailsAtItsOwnDeadline() {
        var ownership = Ownership(node: "n1")
        _ = ownership.floorRequested(by: 1, member: alice, in: deck, now: at(100))
        _ = ownership.floorRequested(by: 2, member: bob, in: deck, now: at(2000))
        #expect(ownership.roundRead(owners: [:], liveNodes: ["n1"], now: at(600)).isEmpty)
        #expect(ownership.timersExpired(now: at(3099)).isEmpty)
        #expect(ownership.timersExpired(now: at(3100)) == [.answer(1, .noOwner)])
        #expect(ownership.timersExpired(now: at(5000)) == [.answer(2, .noOwner)])
        #expect(ownership.nextDeadline == nil)
    }

    @Test func anOwnerLearntFromAFloorEventTakesTheWaitingRequestsAtTheNextTimer() {
        var ownership = Ownership(node: "n1")
        _ = ownership.floorRequested(by: 1, member: alice, in: deck, now: at(100))
        #expect(
            ownership.floorEventArrived(in: deck, from: "n2", answering: nil, now: at(200)) == [
                .ownerChanged(deck, from: nil, to: "n2")
            ])
        #expect(ownership.timersExpired(now: at(250)) == [.forward(FloorTicket(1), deck, member: alice, to: "n2")])
    }

    @Test func waitingRequestsAreBounded() {
        var ownership = Ownership(node: "n1", configuration: .init(maxPending: 1))
        _ = ownership.floorRequested(by: 1, member: alice, in: deck, now: at(100))
        #expect(ownership.floorRequested(by: 2, member: bob, in: bridge, now: at(100)) == [.answer(2, .noOwner)])
    }

    @Test func aNodeCutOffSendsItsMembersElsewhereAfterTheGraceOnce() {
        var ownership = settledNode()
        _ = ownership.databaseLost(now: at(2000))
        _ = ownership.databaseLost(now: at(2500))  // still the first instant
        #expect(ownership.nextDeadline == at(5000))
        #expect(ownership.sendsMembersElsewhere(now: at(4999)) == nil)
        #expect(ownership.timersExpired(now: at(4999)).isEmpty)
        #expect(ownership.timersExpired(now: at(5000)) == [.sendMembersElsewhere(to: ["n2", "n3"])])
        #expect(ownership.sendsMembersElsewhere(now: at(5000)) == ["n2", "n3"])
        #expect(ownership.timersExpired(now: at(9000)).isEmpty)
        #expect(ownership.nextDeadline == nil)
    }

    @Test func aDatabaseBackWithinTheGraceCostsMembersNothing() {
        var ownership = settledNode()
        _ = ownership.databaseLost(now: at(2000))
        let back = ownership.roundRead(owners: [deck: "n1", bridge: "n2"], liveNodes: everyNode, now: at(2600))
        #expect(back.contains(.adoptFloor(deck)))
        #expect(ownership.isolatedSince == nil)
        #expect(ownership.timersExpired(now: at(9000)).isEmpty)
        #expect(ownership.sendsMembersElsewhere(now: at(9000)) == nil)
    }

    @Test func everyIsolationHasItsOwnGrace() {
        var ownership = settledNode()
        _ = ownership.databaseLost(now: at(2000))
        _ = ownership.timersExpired(now: at(5000))
        _ = ownership.roundRead(owners: [deck: "n1"], liveNodes: ["n1", "n2"], now: at(6000))
        _ = ownership.databaseLost(now: at(7000))
        #expect(ownership.timersExpired(now: at(10_000)) == [.sendMembersElsewhere(to: ["n2"])])
    }

    @Test func anEarlierInstantIsTakenAsTheLatestSeen() {
        var ownership = settledNode()
        _ = ownership.floorRequested(by: 1, member: alice, in: bridge, now: at(5000))
        _ = ownership.floorRequested(by: 2, member: alice, in: bridge, now: at(10))  // the clock went back
        #expect(ownership.nextDeadline == at(8000))
        #expect(ownership.timersExpired(now: at(8000)).count == 2)
    }
}
