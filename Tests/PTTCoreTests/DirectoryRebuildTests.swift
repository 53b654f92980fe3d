import Foundation
import Testing

@testable import PTTCore

private typealias F = DirectoryFixture

@Suite("Directory: rebuilding from records")
struct DirectoryRebuildTests {
    @Test func initDropsMembershipsWhoseChannelOrUserIsMissing() throws {
        var source = try F.directory(channels: ["a", "b"], users: [F.user("ann"), F.user("bob")])
        var random = DirectoryRandom(seed: 41)
        let keep = try F.join(&source, "a", user: "ann", random: &random)
        let keep2 = try F.join(&source, "b", user: "ann", device: "tablet", random: &random)
        let noUser = try F.join(&source, "a", user: "bob", random: &random)
        let noChannel = try F.join(&source, "b", user: "bob", device: "watch", random: &random)
        let b = try F.channelID(source, "b")

        let channelB = try #require(source.channel(named: "b"))
        let ann = try #require(source.users["ann"])
        // Both channels (b listed last), but only user ann.
        let rebuilt = ChannelDirectory(
            channels: source.channels.values.filter { $0.id != b } + [channelB],
            users: [ann],
            memberships: [keep, keep2, noUser, noChannel])
        #expect(Set(rebuilt.memberships.keys) == [keep.id, keep2.id])
        #expect(rebuilt.members(of: keep.channel) == [keep])
        #expect(rebuilt.members(of: b) == [keep2])
        #expect(rebuilt.channel(named: "a")?.id == keep.channel)

        let withoutB = ChannelDirectory(
            channels: source.channels.values.filter { $0.id != b },
            users: Array(source.users.values),
            memberships: [keep, keep2, noUser, noChannel])
        #expect(Set(withoutB.memberships.keys) == [keep.id, noUser.id])
        #expect(withoutB.channel(named: "b") == nil)
        #expect(withoutB.members(of: b).isEmpty)
        #expect(withoutB.memberCount(of: b) == 0)
    }

    @Test func rebuiltDirectoryAnswersLikeTheOriginal() throws {
        var source = try F.directory(channels: ["a", "b"], users: [F.user("ann"), F.user("bob", receiveOnly: true)])
        var random = DirectoryRandom(seed: 42)
        for (index, (channel, user, device)) in [
            ("a", "ann", "p"), ("a", "bob", "p"), ("b", "bob", "q"), ("a", "ann", "q"),
        ].enumerated() {
            try F.join(&source, channel, user: user, device: device, at: Double(10 - index), random: &random)
        }
        let rebuilt = ChannelDirectory(
            channels: Array(source.channels.values), users: Array(source.users.values),
            memberships: Array(source.memberships.values))
        #expect(rebuilt.channels == source.channels)
        #expect(rebuilt.users == source.users)
        #expect(rebuilt.memberships == source.memberships)
        for id in source.channels.keys {
            #expect(rebuilt.members(of: id) == source.members(of: id))
        }
        // The rebuilt directory still plans new joins with fresh SSRCs.
        let a = try F.channelID(rebuilt, "a")
        let plan = try rebuilt.planJoin(
            channel: a, user: "bob", device: "z", displayName: nil, receiveOnly: false,
            pushToken: nil, now: F.date(0), random: &random)
        #expect(!source.members(of: a).map(\.ssrc).contains(plan.membership.ssrc))
    }
}
