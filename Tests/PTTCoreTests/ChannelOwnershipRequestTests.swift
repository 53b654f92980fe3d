import Testing

@testable import PTTCore

@Suite("Channel ownership: floor requests, tickets and their answers")
struct ChannelOwnershipRequestTests: OwnershipTesting {
    @Test func aRequestOnAChannelOwnedHereIsDecidedHere() {
        var ownership = settledNode()
        #expect(ownership.floorRequested(by: 1, member: alice, in: deck, now: at(1100)) == [.decideLocally(deck, 1)])
        #expect(ownership.pendingTickets == 0)
    }

    @Test func aRequestOnAChannelOwnedElsewhereIsForwardedWithATicket() {
        var ownership = settledNode()
        let first = ownership.floorRequested(by: 1, member: alice, in: bridge, now: at(1100))
        let second = ownership.floorRequested(by: 2, member: bob, in: bridge, now: at(1100))
        #expect(first == [.forward(FloorTicket(1), bridge, member: alice, to: "n2")])
        #expect(second == [.forward(FloorTicket(2), bridge, member: bob, to: "n2")])
        #expect(ownership.pendingTickets == 2)
        #expect(ownership.nextDeadline == at(4100))
    }

    @Test func theOwnersFloorEventAnswersATicketOnce() {
        var ownership = settledNode()
        _ = ownership.floorRequested(by: 1, member: alice, in: bridge, now: at(1100))
        let answered = ownership.floorEventArrived(in: bridge, from: "n2", answering: FloorTicket(1), now: at(1130))
        #expect(answered == [.answer(1, .answeredBy("n2"))])
        #expect(ownership.floorEventArrived(in: bridge, from: "n2", answering: FloorTicket(1), now: at(1140)).isEmpty)
        #expect(ownership.timersExpired(now: at(9000)).isEmpty)
        #expect(ownership.nextDeadline == nil)
    }

    @Test func aTicketWithoutAnswerFailsAfterItsTimeout() {
        var ownership = settledNode()
        _ = ownership.floorRequested(by: 1, member: alice, in: bridge, now: at(1100))
        #expect(ownership.timersExpired(now: at(4099)).isEmpty)
        #expect(ownership.timersExpired(now: at(4100)) == [.answer(1, .ownerUnreachable("n2"))])
        // The owner's late answer goes to nobody in particular.
        #expect(ownership.floorEventArrived(in: bridge, from: "n2", answering: FloorTicket(1), now: at(4200)).isEmpty)
    }

    @Test func aTicketTimingOutWithNoOwnerKnownSaysSo() {
        var ownership = settledNode()
        _ = ownership.floorRequested(by: 1, member: alice, in: bridge, now: at(1100))
        _ = ownership.databaseLost(now: at(1200))
        #expect(ownership.timersExpired(now: at(4100)) == [.answer(1, .noOwner)])
    }

    @Test func forwardingAnswersOverdueTicketsFirst() {
        var ownership = settledNode()
        _ = ownership.floorRequested(by: 1, member: alice, in: bridge, now: at(1100))
        let actions = ownership.floorRequested(by: 2, member: bob, in: bridge, now: at(5000))
        #expect(
            actions == [.answer(1, .ownerUnreachable("n2")), .forward(FloorTicket(2), bridge, member: bob, to: "n2")])
    }

    @Test func aForwardTheLinkCannotTakeIsAnsweredAtOnce() {
        var ownership = settledNode()
        _ = ownership.floorRequested(by: 1, member: alice, in: bridge, now: at(1100))
        #expect(ownership.forwardUndelivered(FloorTicket(1), now: at(1100)) == [.answer(1, .ownerUnreachable("n2"))])
        #expect(ownership.forwardUndelivered(FloorTicket(1), now: at(1100)).isEmpty)
        #expect(ownership.pendingTickets == 0)
    }

    @Test func aRefusalAnswersTheTicketAndAsksForARound() {
        var ownership = settledNode()
        _ = ownership.floorRequested(by: 1, member: alice, in: bridge, now: at(1100))
        #expect(ownership.forwardRefused(FloorTicket(1), by: "n3", now: at(1150)).isEmpty)  // not the node asked
        #expect(
            ownership.forwardRefused(FloorTicket(1), by: "n2", now: at(1150)) == [
                .answer(1, .refused(by: "n2")), .askRound,
            ])
        #expect(ownership.forwardRefused(FloorTicket(1), by: "n2", now: at(1160)).isEmpty)
    }

    @Test func aNodeGoingDownAnswersTheTicketsForwardedToItOnly() {
        var ownership = settledNode()
        _ = ownership.roundRead(owners: [deck: "n3", bridge: "n2"], liveNodes: everyNode, now: at(1050))
        _ = ownership.floorRequested(by: 1, member: alice, in: bridge, now: at(1100))
        _ = ownership.floorRequested(by: 2, member: bob, in: deck, now: at(1100))
        _ = ownership.floorRequested(by: 3, member: alice, in: bridge, now: at(1100))
        #expect(
            ownership.nodeDown("n2", now: at(1200)) == [
                .answer(1, .ownerUnreachable("n2")), .answer(3, .ownerUnreachable("n2")),
            ])
        #expect(ownership.pendingTickets == 1)
    }

    @Test func ticketsAreBounded() {
        var ownership = settledNode(.init(maxPending: 2))
        _ = ownership.floorRequested(by: 1, member: alice, in: bridge, now: at(1100))
        _ = ownership.floorRequested(by: 2, member: alice, in: bridge, now: at(1100))
        #expect(
            ownership.floorRequested(by: 3, member: alice, in: bridge, now: at(1100)) == [
                .answer(3, .ownerUnreachable("n2"))
            ])
    }

    @Test func aForwardedRequestIsDecidedOnlyByTheOwner() {
        var ownership = settledNode()
        let asked = ForwardedFloorRequest(from: "n2", ticket: FloorTicket(7), member: bob)
        #expect(ownership.forwardedRequestArrived(asked, in: deck, now: at(1100)) == [.decideForwarded(deck, asked)])
        #expect(
            ownership.forwardedRequestArrived(asked, in: bridge, now: at(1100)) == [.refuse(asked, bridge, owner: "n2")]
        )
        _ = ownership.databaseLost(now: at(1200))
        #expect(ownership.forwardedRequestArrived(asked, in: deck, now: at(1300)) == [.refuse(asked, deck, owner: nil)])
    }

    @Test func theDefaultsAreTheServersToday() {
        // The defaults ClusterPlane (PTTServer) runs with: ticketTimeout, isolationGrace and maxPending.
        let configuration = ChannelOwnershipConfiguration()
        #expect(configuration.ticketTimeout == .seconds(3))
        #expect(configuration.isolationGrace == .seconds(3))
        #expect(configuration.maxPending == 10_000)
    }

    @Test func outcomesSayWhatMembersAreTold() {
        #expect(FloorRequestOutcome.answeredBy("n2").message == nil)
        #expect(!FloorRequestOutcome.answeredBy("n2").isFailure)
        #expect(
            FloorRequestOutcome.ownerUnreachable("n2").message
                == "the channel's floor runs on node 'n2', which cannot be reached now: try again")
        #expect(FloorRequestOutcome.noOwner.message?.hasPrefix("no node owns the channel's floor now") == true)
        #expect(FloorRequestOutcome.refused(by: "n3").isFailure)
    }
}
