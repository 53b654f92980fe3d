import Foundation
import Testing

@testable import PTTCore

private typealias F = DirectoryFixture

@Suite("Directory: finding members")
struct DirectoryFindMemberTests {
    /// Channel "general": ann/phone "Ann" (t=1), bob/phone "Bobby" (t=2), bob/tablet "Tab" (t=3),
    /// carol/radio "ann" (t=4).
    func populated() throws -> (ChannelDirectory, ChannelID, [String: Membership]) {
        var directory = try F.directory(
            channels: ["general", "other"],
            users: [F.user("ann"), F.user("bob"), F.user("carol")])
        var random = DirectoryRandom(seed: 51)
        var byKey: [String: Membership] = [:]
        byKey["ann"] = try F.join(
            &directory, "general", user: "ann", device: "phone", displayName: "Ann", at: 1, random: &random)
        byKey["bob-phone"] = try F.join(
            &directory, "general", user: "bob", device: "phone", displayName: "Bobby", at: 2, random: &random)
        byKey["bob-tablet"] = try F.join(
            &directory, "general", user: "bob", device: "tablet", displayName: "Tab", at: 3, random: &random)
        byKey["carol"] = try F.join(
            &directory, "general", user: "carol", device: "radio", displayName: "ann", at: 4, random: &random)
        try F.join(&directory, "other", user: "ann", device: "laptop", displayName: "Lappy", at: 5, random: &random)
        return (directory, try F.channelID(directory, "general"), byKey)
    }

    @Test func membersAreOrderedByJoinTimeNotByJoinOrder() throws {
        var directory = try F.directory(channels: ["general"], users: [F.user("ann")])
        var random = DirectoryRandom(seed: 52)
        let late = try F.join(&directory, "general", user: "ann", device: "late", at: 30, random: &random)
        let early = try F.join(&directory, "general", user: "ann", device: "early", at: 10, random: &random)
        let middle = try F.join(&directory, "general", user: "ann", device: "middle", at: 20, random: &random)
        #expect(directory.members(of: late.channel).map(\.device) == ["early", "middle", "late"])
        #expect(directory.members(of: late.channel) == [early, middle, late])
    }

    @Test func membersJoinedAtTheSameInstantAreOrderedByID() throws {
        var directory = try F.directory(channels: ["general"], users: [F.user("ann")])
        var random = DirectoryRandom(seed: 53)
        for index in 0..<20 {
            try F.join(&directory, "general", user: "ann", device: "d\(index)", at: 5, random: &random)
        }
        let ids = directory.members(of: try F.channelID(directory, "general")).map(\.id)
        #expect(ids.count == 20)
        #expect(ids == ids.sorted())
    }

    @Test func membersOfAnUnknownChannelIsEmpty() throws {
        let (directory, _, _) = try populated()
        #expect(directory.members(of: ChannelID()).isEmpty)
        #expect(directory.memberCount(of: ChannelID()) == 0)
    }

    @Test func findMemberByID() throws {
        let (directory, general, members) = try populated()
        let bob = try #require(members["bob-tablet"])
        #expect(directory.findMember(bob.id.rawValue, in: general) == bob)
    }

    @Test func findMemberByUniqueDisplayName() throws {
        let (directory, general, members) = try populated()
        #expect(directory.findMember("Bobby", in: general) == members["bob-phone"])
        #expect(directory.findMember("Tab", in: general) == members["bob-tablet"])
    }

    @Test func findMemberByUniqueDevice() throws {
        let (directory, general, members) = try populated()
        #expect(directory.findMember("tablet", in: general) == members["bob-tablet"])
        #expect(directory.findMember("radio", in: general) == members["carol"])
    }

    @Test func findMemberByUniqueUserName() throws {
        let (directory, general, members) = try populated()
        #expect(directory.findMember("carol", in: general) == members["carol"])
    }

    @Test func displayNameWinsOverUserName() throws {
        // "ann" is carol's display name and ann's user name: the display name is looked at first.
        let (directory, general, members) = try populated()
        #expect(directory.findMember("ann", in: general) == members["carol"])
    }

    @Test func ambiguousReferenceFindsNobody() throws {
        let (directory, general, _) = try populated()
        #expect(directory.findMember("phone", in: general) == nil, "two members on a device called phone")
        #expect(directory.findMember("bob", in: general) == nil, "bob has two devices")
    }

    @Test func ambiguousDisplayNameFindsNobody() throws {
        var directory = try F.directory(channels: ["general"], users: [F.user("ann"), F.user("bob")])
        var random = DirectoryRandom(seed: 54)
        let ann = try F.join(&directory, "general", user: "ann", device: "a", displayName: "Sam", random: &random)
        try F.join(&directory, "general", user: "bob", device: "b", displayName: "Sam", random: &random)
        #expect(directory.findMember("Sam", in: ann.channel) == nil)
        #expect(directory.findMember("a", in: ann.channel) == ann)
    }

    @Test func ambiguityAtAnEarlierKeyIsNotResolvedByALaterOne() throws {
        // Two members display as "lead"; a third has a device called "lead". Display names are looked at
        // first and are ambiguous, so nobody is found rather than the device match.
        var directory = try F.directory(channels: ["general"], users: [F.user("ann"), F.user("bob"), F.user("carol")])
        var random = DirectoryRandom(seed: 55)
        let ann = try F.join(&directory, "general", user: "ann", device: "a", displayName: "lead", random: &random)
        try F.join(&directory, "general", user: "bob", device: "b", displayName: "lead", random: &random)
        let carol = try F.join(
            &directory, "general", user: "carol", device: "lead", displayName: "Carol", random: &random)
        #expect(directory.findMember("lead", in: ann.channel) == nil)
        #expect(directory.findMember("Carol", in: ann.channel) == carol)
    }

    @Test func findMemberLooksOnlyInTheGivenChannel() throws {
        let (directory, general, _) = try populated()
        #expect(directory.findMember("Lappy", in: general) == nil)
        #expect(directory.findMember("laptop", in: general) == nil)
        #expect(directory.findMember("nobody", in: general) == nil)
        let other = try F.channelID(directory, "other")
        #expect(directory.findMember("Lappy", in: other)?.device == "laptop")
        #expect(directory.findMember("ann", in: other)?.device == "laptop")
    }

    @Test func leavingRemovesTheMembershipFromItsChannel() throws {
        let (populatedDirectory, general, members) = try populated()
        var directory = populatedDirectory
        let bob = try #require(members["bob-phone"])
        directory.apply(.removeMembership(bob.id))
        #expect(directory.memberships[bob.id] == nil)
        #expect(directory.memberCount(of: general) == 3)
        #expect(!directory.members(of: general).contains(bob))
        #expect(directory.findMember("bob", in: general) == members["bob-tablet"], "bob is no longer ambiguous")
    }
}
