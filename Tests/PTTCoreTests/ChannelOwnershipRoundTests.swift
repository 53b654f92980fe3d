import Testing

@testable import PTTCore

@Suite("Channel ownership: rounds, failover, the database lost")
struct ChannelOwnershipRoundTests: OwnershipTesting {
    @Test func firstRoundAdoptsTheChannelsThisNodeOwnsAndFollowsTheOthers() {
        var ownership = Ownership(node: "n1")
        let actions = ownership.roundRead(owners: [deck: "n1", bridge: "n2"], liveNodes: everyNode, now: at(1000))
        #expect(
            actions == [
                .ownerChanged(deck, from: nil, to: "n1"), .adoptFloor(deck),
                .ownerChanged(bridge, from: nil, to: "n2"),
            ])
        #expect(ownership.route(of: deck) == .here)
        #expect(ownership.route(of: bridge) == .owner("n2"))
        #expect(ownership.ownedChannels == [deck])
        #expect(ownership.otherLiveNodes == ["n2", "n3"])
    }

    @Test func theSameRoundAgainChangesNothing() {
        var ownership = settledNode()
        #expect(ownership.roundRead(owners: [deck: "n1", bridge: "n2"], liveNodes: everyNode, now: at(1500)).isEmpty)
    }

    @Test func failoverAdoptsTheFloorOfADeadOwner() {
        var ownership = settledNode()
        let actions = ownership.roundRead(owners: [deck: "n1", bridge: "n1"], liveNodes: ["n1", "n3"], now: at(1500))
        #expect(actions == [.ownerChanged(bridge, from: "n2", to: "n1"), .adoptFloor(bridge)])
        #expect(ownership.otherLiveNodes == ["n3"])
    }

    @Test func aRoundThatNamesAnotherOwnerReleasesTheFloorRunHere() {
        var ownership = settledNode()
        let actions = ownership.roundRead(owners: [deck: "n3", bridge: "n2"], liveNodes: everyNode, now: at(1500))
        #expect(actions == [.ownerChanged(deck, from: "n1", to: "n3"), .releaseFloor(deck)])
        #expect(!ownership.ownsFloor(of: deck))
    }

    @Test func aChannelNoLongerInTheRoundHasNoKnownOwner() {
        var ownership = settledNode()
        let actions = ownership.roundRead(owners: [deck: "n1"], liveNodes: everyNode, now: at(1500))
        #expect(actions == [.ownerChanged(bridge, from: "n2", to: nil)])
        #expect(ownership.route(of: bridge) == .unknown)
    }

    @Test func losingTheDatabaseGivesUpEveryChannelAtOnce() {
        var ownership = settledNode()
        let actions = ownership.databaseLost(now: at(2000))
        #expect(
            actions == [
                .ownerChanged(deck, from: "n1", to: nil), .releaseFloor(deck),
                .ownerChanged(bridge, from: "n2", to: nil),
            ])
        #expect(ownership.ownedChannels.isEmpty)
        #expect(ownership.route(of: deck) == .unknown)
        #expect(ownership.isolatedSince == at(2000))
    }

    @Test func aRoundWithNoLiveNodeIsTheLostConnection() {
        var ownership = settledNode()
        let actions = ownership.roundRead(owners: [:], liveNodes: [], now: at(2000))
        #expect(actions.contains(.releaseFloor(deck)))
        #expect(ownership.isolatedSince == at(2000))
    }

    @Test func anOwnersFloorEventTeachesANodeWhoseViewIsBehind() {
        var ownership = settledNode()
        let actions = ownership.floorEventArrived(in: deck, from: "n2", answering: nil, now: at(1200))
        #expect(actions == [.ownerChanged(deck, from: "n1", to: "n2"), .releaseFloor(deck)])
        #expect(ownership.route(of: deck) == .owner("n2"))
        // The next round says who really owns it.
        let round = ownership.roundRead(owners: [deck: "n1", bridge: "n2"], liveNodes: everyNode, now: at(1500))
        #expect(round == [.ownerChanged(deck, from: "n2", to: "n1"), .adoptFloor(deck)])
    }

    @Test func aFloorEventFromTheOwnerItNamesChangesNothing() {
        var ownership = settledNode()
        #expect(ownership.floorEventArrived(in: bridge, from: "n2", answering: nil, now: at(1200)).isEmpty)
    }

    @Test func aFloorEventClaimingToComeFromThisNodeIsIgnored() {
        var ownership = settledNode()
        #expect(ownership.floorEventArrived(in: bridge, from: "n1", answering: nil, now: at(1200)).isEmpty)
        #expect(ownership.route(of: bridge) == .owner("n2"))
    }
}
