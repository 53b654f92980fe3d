import Foundation
import Testing

@testable import PTTCore

/// Which channels a broadcast reaches and where each device hears it (Docs/PROTOCOL.md 5.42), from the directory.
@Suite("Broadcast plans")
struct BroadcastPlanTests {
    /// bridge: captain; deck: ann, bob; engine: bob (the same phone), carl; galley: dora.
    static func crew() throws -> (ChannelDirectory, captain: Membership, bobEngine: Membership) {
        var captain = DirectoryFixture.user("captain")
        captain.rights = [.broadcast]
        var directory = try DirectoryFixture.directory(
            channels: ["bridge", "deck", "engine", "galley"],
            users: [captain] + ["ann", "bob", "carl", "dora"].map { DirectoryFixture.user($0) })
        var random = DirectoryRandom(seed: 7)
        let sender = try DirectoryFixture.join(&directory, "bridge", user: "captain", random: &random)
        try DirectoryFixture.join(&directory, "deck", user: "ann", random: &random)
        try DirectoryFixture.join(&directory, "deck", user: "bob", random: &random)
        let bobEngine = try DirectoryFixture.join(&directory, "engine", user: "bob", random: &random)
        try DirectoryFixture.join(&directory, "engine", user: "carl", random: &random)
        try DirectoryFixture.join(&directory, "galley", user: "dora", random: &random)
        return (directory, sender, bobEngine)
    }

    static func plan(
        _ directory: ChannelDirectory, _ sender: Membership, to names: [String], all: Bool = false,
        busy: (Channel) -> String? = { _ in nil }
    ) throws(BroadcastPlan.Refusal) -> BroadcastPlan {
        try BroadcastPlan.plan(
            sender: sender, source: directory.channels[sender.channel]!, to: names, all: all, directory: directory,
            maxChannels: 64, busy: busy)
    }

    @Test func theChannelsInOrderEachOnceAndADeviceHearsItInItsFirstChannelOnly() throws {
        let (directory, captain, bobEngine) = try Self.crew()
        let plan = try Self.plan(directory, captain, to: ["deck", "engine", "deck", "bridge"])
        let names = plan.targets.map { directory.channels[$0]!.name }
        #expect(names == ["deck", "engine"])
        #expect(plan.source == captain.channel && plan.sender == captain.id)
        #expect(plan.skips.values.flatMap { $0 } == [bobEngine.id], "bob hears it on deck, not again on engine")
    }

    @Test func whoIsSkippedIsDecidedAgainWhenADeviceLeavesTheChannelItHeardItOn() throws {
        var (directory, captain, bobEngine) = try Self.crew()
        let plan = try Self.plan(directory, captain, to: ["deck", "engine"])
        let order = [plan.source] + plan.targets
        #expect(BroadcastPlan.skips(in: order, directory: directory) == plan.skips)
        let bobDeck = try #require(directory.members(of: plan.targets[0]).first { $0.user == "bob" })
        directory.apply(.removeMembership(bobDeck.id))
        #expect(BroadcastPlan.skips(in: order, directory: directory).isEmpty, "bob hears it on engine now")
        // Deck taken out of the broadcast (an emergency) with bob still in it: engine is his first channel.
        var again = try Self.crew().0
        #expect(BroadcastPlan.skips(in: [order[0], order[2]], directory: again).isEmpty)
        again.apply(.removeMembership(bobEngine.id))
        #expect(BroadcastPlan.skips(in: order, directory: again).isEmpty)
    }

    @Test func allIsEveryGroupChannelByName() throws {
        let (directory, captain, _) = try Self.crew()
        let plan = try Self.plan(directory, captain, to: [], all: true)
        #expect(plan.targets.map { directory.channels[$0]!.name } == ["deck", "engine", "galley"])
    }

    @Test func refusals() throws {
        let (directory, captain, bobEngine) = try Self.crew()
        #expect(throws: BroadcastPlan.Refusal.notPermitted(user: "bob")) {
            try Self.plan(directory, bobEngine, to: ["deck"])
        }
        #expect(throws: BroadcastPlan.Refusal.noChannels) { try Self.plan(directory, captain, to: []) }
        #expect(throws: BroadcastPlan.Refusal.noChannels) { try Self.plan(directory, captain, to: ["bridge"]) }
        #expect(throws: BroadcastPlan.Refusal.noSuchChannel("hold")) {
            try Self.plan(directory, captain, to: ["deck", "hold"])
        }
        #expect(throws: BroadcastPlan.Refusal.busy(channel: "engine", why: "in emergency")) {
            try Self.plan(directory, captain, to: ["deck", "engine"]) { $0.name == "engine" ? "in emergency" : nil }
        }
        #expect(throws: BroadcastPlan.Refusal.tooMany(4, limit: 3)) {
            try BroadcastPlan.plan(
                sender: captain, source: directory.channels[captain.channel]!, to: [], all: true,
                directory: directory, maxChannels: 3, busy: { _ in nil })
        }
        #expect(BroadcastPlan.Refusal.notPermitted(user: "bob").message.contains("pttctl user rights bob broadcast"))
    }
}
