import Foundation
import Testing

@testable import PTTCore

private typealias F = DirectoryFixture

@Suite("Directory: channels")
struct DirectoryChannelTests {
    @Test func planCreateChannelReturnsTheChannelWithoutChangingTheDirectory() throws {
        let directory = ChannelDirectory()
        let id = ChannelID()
        let channel = try directory.planCreateChannel(
            name: "general", imageURL: "https://x/y.png", id: id, now: F.date(5))
        #expect(channel == Channel(id: id, name: "general", imageURL: "https://x/y.png", createdAt: F.date(5)))
        #expect(directory.channels.isEmpty)
        #expect(directory.channel(named: "general") == nil)
    }

    @Test func planCreateChannelRefusesAnExistingName() throws {
        let directory = try F.directory(channels: ["general"])
        #expect(throws: DirectoryError.channelExists("general")) {
            try directory.planCreateChannel(name: "general", now: F.date(1))
        }
        // A different name is fine.
        _ = try directory.planCreateChannel(name: "general 2", now: F.date(1))
    }

    @Test func planCreateChannelRefusesAnExistingID() throws {
        let directory = try F.directory(channels: ["general"])
        let id = try F.channelID(directory, "general")
        #expect(throws: DirectoryError.channelExists(id.description)) {
            try directory.planCreateChannel(name: "other", id: id, now: F.date(1))
        }
    }

    @Test func planCreateChannelLimitsTheImageURLTo512Bytes() throws {
        let directory = ChannelDirectory()
        let ok = String(repeating: "u", count: 512)
        #expect(try directory.planCreateChannel(name: "a", imageURL: ok, now: F.date(0)).imageURL == ok)
        #expect(throws: DirectoryError.invalidValue("image URL is longer than 512 bytes")) {
            try directory.planCreateChannel(name: "a", imageURL: ok + "u", now: F.date(0))
        }
    }

    @Test func channelIsFoundByNameAndByUUIDStringInEitherCase() throws {
        let directory = try F.directory(channels: ["general", "ops"])
        let general = try #require(directory.channel(named: "general"))
        #expect(general.name == "general")
        #expect(directory.channel(named: "ops")?.name == "ops")
        #expect(directory.channel(named: general.id.description) == general)
        #expect(directory.channel(named: general.id.uuid.uuidString.uppercased()) == general)
        #expect(directory.channel(named: general.id.uuid.uuidString.lowercased()) == general)
    }

    @Test func unknownNamesAndUUIDsFindNoChannel() throws {
        let directory = try F.directory(channels: ["general"])
        #expect(directory.channel(named: "General") == nil)
        #expect(directory.channel(named: "nope") == nil)
        #expect(directory.channel(named: "") == nil)
        #expect(directory.channel(named: UUID().uuidString) == nil)
        #expect(directory.channel(named: ChannelID().description) == nil)
    }

    @Test func channelIDDescriptionIsTheLowercaseUUID() {
        let uuid = UUID()
        #expect(ChannelID(uuid).description == uuid.uuidString.lowercased())
        #expect(ChannelID(string: uuid.uuidString) == ChannelID(uuid))
        #expect(ChannelID(string: "not-a-uuid") == nil)
    }

    @Test func putChannelWithAnExistingIDRenamesIt() throws {
        var directory = try F.directory(channels: ["old"])
        var channel = try #require(directory.channel(named: "old"))
        channel.name = "new"
        directory.apply(.putChannel(channel))
        #expect(directory.channel(named: "old") == nil)
        #expect(directory.channel(named: "new") == channel)
        #expect(directory.channels.count == 1)
        // The old name is free again.
        _ = try directory.planCreateChannel(name: "old", now: F.date(9))
    }

    @Test func removeChannelRemovesItsMembershipsAndNoOthers() throws {
        var directory = try F.directory(channels: ["a", "b"], users: [F.user("ann"), F.user("bob")])
        var random = DirectoryRandom(seed: 7)
        let a1 = try F.join(&directory, "a", user: "ann", random: &random)
        let a2 = try F.join(&directory, "a", user: "bob", random: &random)
        let b1 = try F.join(&directory, "b", user: "ann", random: &random)
        let a = try F.channelID(directory, "a")

        #expect(Set(directory.members(of: a).map(\.id)) == [a1.id, a2.id])
        #expect(directory.channel(named: a.description)?.name == "a", "found by its UUID too")
        #expect(directory.channel(named: "zz") == nil)
        directory.apply(.removeChannel(a))
        #expect(directory.channels[a] == nil)
        #expect(directory.channel(named: "a") == nil)
        #expect(directory.channel(named: a.description) == nil)
        #expect(directory.memberships[a1.id] == nil)
        #expect(directory.memberships[a2.id] == nil)
        #expect(directory.members(of: a).isEmpty)
        #expect(directory.memberCount(of: a) == 0)
        #expect(Array(directory.memberships.keys) == [b1.id])
        #expect(directory.users.count == 2)
    }

    @Test func removingAnUnknownChannelChangesNothing() throws {
        var directory = try F.directory(channels: ["a"])
        let before = directory.channels
        directory.apply(.removeChannel(ChannelID()))
        #expect(directory.channels == before)
    }
}
