import Foundation
import Testing

@testable import PTTCore

private typealias F = DirectoryFixture

@Suite("Directory: users")
struct DirectoryUserTests {
    @Test(arguments: [-1000, -1, 0, 1, 1000])
    func planAddUserAcceptsPrioritiesWithinBounds(priority: Int) throws {
        let directory = ChannelDirectory()
        #expect(try directory.planAddUser(F.user("ann", priority: priority)).priority == priority)
    }

    @Test(arguments: [-1001, 1001, Int.min, Int.max])
    func planAddUserRefusesPrioritiesOutOfBounds(priority: Int) {
        let directory = ChannelDirectory()
        #expect(throws: DirectoryError.invalidValue("priority must be between -1000 and 1000")) {
            try directory.planAddUser(F.user("ann", priority: priority))
        }
    }

    @Test func planAddUserRefusesAnExistingUserAndChangesNothing() throws {
        let directory = try F.directory(users: [F.user("ann")])
        #expect(throws: DirectoryError.userExists("ann")) { try directory.planAddUser(F.user("ann", priority: 3)) }
        #expect(directory.users["ann"]?.priority == 0)
        #expect(ChannelDirectory().users.isEmpty)
    }

    @Test func planRemoveUserReturnsExactlyThatUsersMemberships() throws {
        var directory = try F.directory(channels: ["a", "b"], users: [F.user("ann"), F.user("bob")])
        var random = DirectoryRandom(seed: 3)
        let mine = [
            try F.join(&directory, "a", user: "ann", device: "phone", random: &random),
            try F.join(&directory, "a", user: "ann", device: "tablet", random: &random),
            try F.join(&directory, "b", user: "ann", device: "phone", random: &random),
        ]
        try F.join(&directory, "a", user: "bob", device: "phone", random: &random)
        try F.join(&directory, "b", user: "bob", device: "phone", random: &random)

        let removed = try directory.planRemoveUser("ann")
        #expect(removed.count == 3)
        #expect(Set(removed.map(\.id)) == Set(mine.map(\.id)))
        #expect(directory.memberships.count == 5, "planning changes nothing")
        #expect(try directory.planRemoveUser("bob").allSatisfy { $0.user == "bob" })
    }

    @Test func planRemoveUserRefusesUnknown() {
        #expect(throws: DirectoryError.noSuchUser("ghost")) { try ChannelDirectory().planRemoveUser("ghost") }
    }

    @Test func planRemoveUserOfAUserWithoutMembershipsIsEmpty() throws {
        let directory = try F.directory(users: [F.user("ann")])
        #expect(try directory.planRemoveUser("ann").isEmpty)
    }

    @Test func removeUserRemovesOnlyThatUsersMemberships() throws {
        var directory = try F.directory(channels: ["a", "b"], users: [F.user("ann"), F.user("bob")])
        var random = DirectoryRandom(seed: 4)
        try F.join(&directory, "a", user: "ann", random: &random)
        try F.join(&directory, "b", user: "ann", device: "tablet", random: &random)
        let bobs = [
            try F.join(&directory, "a", user: "bob", random: &random),
            try F.join(&directory, "b", user: "bob", random: &random),
        ]
        directory.apply(.removeUser("ann"))
        #expect(directory.users["ann"] == nil)
        #expect(directory.users["bob"] != nil)
        #expect(Set(directory.memberships.keys) == Set(bobs.map(\.id)))
        #expect(directory.members(of: try F.channelID(directory, "a")).map(\.user) == ["bob"])
        #expect(directory.memberCount(of: try F.channelID(directory, "b")) == 1)
        #expect(directory.memberships(user: "ann", device: "phone").isEmpty)
    }
}
