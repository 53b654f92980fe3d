import Foundation
@testable import PTTCore
import Testing

private typealias F = DirectoryFixture

@Suite("Directory: name rules")
struct DirectoryNameTests {
    @Test(arguments: [
        "general", "Ops Team", "a", "Überkanal", "频道", "🚒 Fire crew", "Ελληνικά", "x-y_z.1",
        String(repeating: "x", count: 64),
        // 64 characters of 2 scalars each: the limit counts characters, not scalars or bytes.
        String(repeating: "e\u{301}", count: 64),
    ])
    func acceptsOrdinaryAndUnicodeNames(name: String) {
        #expect(F.nameRejection(name) == nil)
    }

    @Test func rejectsEmptyName() {
        #expect(F.nameRejection("") == "channel name is empty")
    }

    @Test func rejectsNameOfSixtyFiveCharacters() {
        #expect(F.nameRejection(String(repeating: "x", count: 65)) == "channel name is longer than 64 characters")
        #expect(F.nameRejection(String(repeating: "é", count: 65)) == "channel name is longer than 64 characters")
    }

    @Test(arguments: ["a\nb", "tab\there", "nul\u{0}", "\u{7F}del", "esc\u{1B}[0m", "next\u{85}line", "\r"])
    func rejectsControlCharacters(name: String) {
        #expect(F.nameRejection(name) == "channel name contains control or invisible characters")
    }

    @Test(arguments: [" leading", "trailing ", " both ", " ", "   ", "\u{A0}nbsp", "ideographic\u{3000}"])
    func rejectsLeadingOrTrailingSpacesAndBlankNames(name: String) {
        #expect(F.nameRejection(name) == "channel name has leading or trailing spaces")
    }

    @Test func acceptsInnerSpaces() {
        #expect(F.nameRejection("a  b c") == nil)
    }

    @Test func reasonNamesWhatWasValidated() {
        #expect(F.nameRejection("", what: "user") == "user name is empty")
        #expect(F.nameRejection(" x", what: "display") == "display name has leading or trailing spaces")
    }

    @Test func planCreateChannelAppliesNameRules() throws {
        let directory = ChannelDirectory()
        #expect(throws: DirectoryError.invalidName("channel name is empty")) {
            try directory.planCreateChannel(name: "", now: F.date(0))
        }
        #expect(throws: DirectoryError.invalidName("channel name has leading or trailing spaces")) {
            try directory.planCreateChannel(name: "ops ", now: F.date(0))
        }
    }

    @Test func planAddUserAppliesNameRules() {
        let directory = ChannelDirectory()
        #expect(throws: DirectoryError.invalidName("user name contains control or invisible characters")) {
            try directory.planAddUser(F.user("bad\u{7}"))
        }
        #expect(throws: DirectoryError.invalidName("user name is longer than 64 characters")) {
            try directory.planAddUser(F.user(String(repeating: "u", count: 65)))
        }
    }

    @Test func planJoinAppliesNameRulesToTheDisplayName() throws {
        let directory = try F.directory(channels: ["general"], users: [F.user("ann")])
        var random = DirectoryRandom(seed: 1)
        let channel = try F.channelID(directory, "general")
        #expect(throws: DirectoryError.invalidName("display name has leading or trailing spaces")) {
            try directory.planJoin(channel: channel, user: "ann", device: "phone", displayName: " Ann",
                                   receiveOnly: false, pushToken: nil, now: F.date(1), random: &random)
        }
        #expect(throws: DirectoryError.invalidName("display name is empty")) {
            try directory.planJoin(channel: channel, user: "ann", device: "phone", displayName: "",
                                   receiveOnly: false, pushToken: nil, now: F.date(1), random: &random)
        }
    }
}

@Suite("Directory: channels")
struct DirectoryChannelTests {
    @Test func planCreateChannelReturnsTheChannelWithoutChangingTheDirectory() throws {
        let directory = ChannelDirectory()
        let id = ChannelID()
        let channel = try directory.planCreateChannel(name: "general", imageURL: "https://x/y.png", id: id, now: F.date(5))
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

@Suite("Directory: joining")
struct DirectoryJoinTests {
    @Test func newJoinPlansAFreshMembershipWithoutChangingTheDirectory() throws {
        let directory = try F.directory(channels: ["general"], users: [F.user("ann", priority: 7)])
        let channel = try F.channelID(directory, "general")
        var random = DirectoryRandom(seed: 11)
        let plan = try directory.planJoin(
            channel: channel, user: "ann", device: "phone-1", displayName: nil, receiveOnly: false,
            pushToken: [1, 2, 3], now: F.date(42), random: &random)
        let m = plan.membership
        #expect(plan.isNew)
        #expect(m.channel == channel)
        #expect(m.user == "ann")
        #expect(m.device == "phone-1")
        #expect(m.displayName == "ann", "display name defaults to the user name")
        #expect(m.priority == 7)
        #expect(m.receiveOnly == false)
        #expect(m.pushToken == [1, 2, 3])
        #expect(m.ssrc != 0)
        #expect(m.mediaKey.count == 30)
        #expect(Set(m.mediaKey).count > 1, "the key is random, not a constant fill")
        #expect(m.joinedAt == F.date(42))
        #expect(F.isMemberIDText(m.id.rawValue))
        #expect(directory.memberships.isEmpty)
        #expect(directory.membership(channel: channel, user: "ann", device: "phone-1") == nil)
    }

    @Test func joinTakesDisplayNameAndReceiveOnlyFromTheRequest() throws {
        var directory = try F.directory(channels: ["general"], users: [F.user("ann", priority: -5)])
        var random = DirectoryRandom(seed: 12)
        let m = try F.join(&directory, "general", user: "ann", displayName: "Annie", receiveOnly: true, random: &random)
        #expect(m.displayName == "Annie")
        #expect(m.receiveOnly)
        #expect(m.priority == -5)
    }

    @Test(arguments: [false, true])
    func receiveOnlyUserIsAlwaysReceiveOnly(requested: Bool) throws {
        var directory = try F.directory(channels: ["general"], users: [F.user("radio", receiveOnly: true)])
        var random = DirectoryRandom(seed: 13)
        let first = try F.join(&directory, "general", user: "radio", receiveOnly: requested, random: &random)
        #expect(first.receiveOnly)
        let again = try directory.planJoin(
            channel: first.channel, user: "radio", device: "phone", displayName: nil, receiveOnly: false,
            pushToken: nil, now: F.date(200), random: &random)
        #expect(again.membership.receiveOnly)
    }

    @Test(arguments: [UInt64.max, 0x3FF])
    func fiveHundredJoinsGetUniqueNonzeroSSRCsAndIDs(mask: UInt64) throws {
        // With mask 0x3FF every draw is one of 1024 values, so SSRCs and ids collide (and zero comes up) often.
        var directory = try F.directory(channels: ["big", "other"], users: [F.user("ann", priority: 3)])
        var random = DirectoryRandom(seed: 0xD1EC7, mask: mask)
        var ssrcs = Set<UInt32>()
        var ids = Set<MemberID>()
        var keys = Set<[UInt8]>()
        for index in 0..<500 {
            let m = try F.join(&directory, "big", user: "ann", device: "device-\(index)", at: Double(index), random: &random)
            #expect(m.ssrc != 0)
            #expect(m.mediaKey.count == 30)
            #expect(m.priority == 3)
            #expect(F.isMemberIDText(m.id.rawValue))
            ssrcs.insert(m.ssrc)
            ids.insert(m.id)
            keys.insert(m.mediaKey)
        }
        #expect(ssrcs.count == 500)
        #expect(ids.count == 500)
        if mask == .max { #expect(keys.count == 500) }
        let big = try F.channelID(directory, "big")
        #expect(directory.memberCount(of: big) == 500)
        #expect(Set(directory.members(of: big).map(\.ssrc)) == ssrcs)
        // Member ids are unique across channels too.
        let other = try F.join(&directory, "other", user: "ann", device: "device-0", random: &random)
        #expect(!ids.contains(other.id))
    }

    @Test func rejoinKeepsIdentityAndKeysButReplacesTokenNameAndFlags() throws {
        var directory = try F.directory(channels: ["general"], users: [F.user("ann", priority: 2)])
        var random = DirectoryRandom(seed: 21)
        let first = try F.join(&directory, "general", user: "ann", displayName: "Ann", receiveOnly: true,
                               pushToken: [0xAA, 0xBB], at: 10, random: &random)

        let second = try directory.planJoin(
            channel: first.channel, user: "ann", device: "phone", displayName: "Ann B", receiveOnly: false,
            pushToken: [0xCC], now: F.date(20), random: &random)
        #expect(!second.isNew)
        #expect(second.membership.id == first.id)
        #expect(second.membership.ssrc == first.ssrc)
        #expect(second.membership.mediaKey != first.mediaKey, "a re-join brings a new SRTP key")
        #expect(second.membership.mediaKey.count == 30)
        #expect(second.membership.joinedAt == first.joinedAt)
        #expect(second.membership.displayName == "Ann B")
        #expect(second.membership.receiveOnly == false)
        #expect(second.membership.pushToken == [0xCC])
        directory.apply(.putMembership(second.membership))
        #expect(directory.memberships.count == 1)

        // A join without a token clears the old one; without a display name the user name comes back.
        let third = try directory.planJoin(
            channel: first.channel, user: "ann", device: "phone", displayName: nil, receiveOnly: false,
            pushToken: nil, now: F.date(30), random: &random)
        #expect(!third.isNew)
        #expect(third.membership.id == first.id)
        #expect(third.membership.pushToken == nil)
        #expect(third.membership.displayName == "ann")
    }

    @Test func rejoinTakesTheUsersCurrentPriority() throws {
        var directory = try F.directory(channels: ["general"], users: [F.user("ann", priority: 2)])
        var random = DirectoryRandom(seed: 22)
        let first = try F.join(&directory, "general", user: "ann", random: &random)
        directory.apply(.putUser(F.user("ann", priority: 9)))
        let again = try directory.planJoin(
            channel: first.channel, user: "ann", device: "phone", displayName: nil, receiveOnly: false,
            pushToken: nil, now: F.date(1), random: &random)
        #expect(again.membership.priority == 9)
        #expect(again.membership.id == first.id)
    }

    @Test func anotherDeviceOfTheSameUserIsAnotherMembership() throws {
        var directory = try F.directory(channels: ["general"], users: [F.user("ann")])
        var random = DirectoryRandom(seed: 23)
        let phone = try F.join(&directory, "general", user: "ann", device: "phone", random: &random)
        let plan = try directory.planJoin(
            channel: phone.channel, user: "ann", device: "tablet", displayName: nil, receiveOnly: false,
            pushToken: nil, now: F.date(1), random: &random)
        #expect(plan.isNew)
        #expect(plan.membership.id != phone.id)
        #expect(plan.membership.ssrc != phone.ssrc)
        directory.apply(.putMembership(plan.membership))
        #expect(directory.memberCount(of: phone.channel) == 2)
        #expect(directory.membership(channel: phone.channel, user: "ann", device: "phone") == phone)
        #expect(directory.membership(channel: phone.channel, user: "ann", device: "tablet") == plan.membership)
    }

    @Test func sameDeviceNameOfAnotherUserIsAnotherMembership() throws {
        var directory = try F.directory(channels: ["general"], users: [F.user("ann"), F.user("bob")])
        var random = DirectoryRandom(seed: 24)
        let ann = try F.join(&directory, "general", user: "ann", device: "phone", random: &random)
        let bob = try F.join(&directory, "general", user: "bob", device: "phone", random: &random)
        #expect(ann.id != bob.id)
        #expect(directory.memberCount(of: ann.channel) == 2)
    }

    @Test func joinRefusesUnknownChannelOrUser() throws {
        let directory = try F.directory(channels: ["general"], users: [F.user("ann")])
        var random = DirectoryRandom(seed: 25)
        let missing = ChannelID()
        #expect(throws: DirectoryError.noSuchChannel(missing.description)) {
            try directory.planJoin(channel: missing, user: "ann", device: "phone", displayName: nil,
                                   receiveOnly: false, pushToken: nil, now: F.date(0), random: &random)
        }
        #expect(throws: DirectoryError.noSuchUser("ghost")) {
            try directory.planJoin(channel: try F.channelID(directory, "general"), user: "ghost", device: "phone",
                                   displayName: nil, receiveOnly: false, pushToken: nil, now: F.date(0), random: &random)
        }
    }

    @Test func membershipsOfADeviceSpanChannelsOldestFirst() throws {
        var directory = try F.directory(channels: ["a", "b", "c"], users: [F.user("ann")])
        var random = DirectoryRandom(seed: 26)
        let c = try F.join(&directory, "c", user: "ann", at: 1, random: &random)
        let a = try F.join(&directory, "a", user: "ann", at: 3, random: &random)
        let b = try F.join(&directory, "b", user: "ann", at: 2, random: &random)
        try F.join(&directory, "a", user: "ann", device: "tablet", random: &random)
        #expect(directory.memberships(user: "ann", device: "phone").map(\.id) == [c.id, b.id, a.id])
    }
}

@Suite("Directory: push tokens")
struct DirectoryPushTokenTests {
    @Test(arguments: [1, 2, 8, 32, 100, 1023, 1024])
    func tokensOfOneTo1024BytesAreAccepted(length: Int) throws {
        let token = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        try ChannelDirectory.validatePushToken(token)

        var directory = try F.directory(channels: ["general"], users: [F.user("ann")])
        var random = DirectoryRandom(seed: UInt64(length))
        let m = try F.join(&directory, "general", user: "ann", pushToken: token, random: &random)
        #expect(m.pushToken == token)
        #expect(try directory.planPushToken(member: m.id, token: token).pushToken == token)
    }

    @Test func emptyTokenIsRefused() throws {
        #expect(throws: DirectoryError.invalidPushToken("empty")) { try ChannelDirectory.validatePushToken([]) }
    }

    @Test func tokenOf1025BytesIsRefused() throws {
        #expect(throws: DirectoryError.invalidPushToken("longer than 1024 bytes")) {
            try ChannelDirectory.validatePushToken(Array(repeating: 1, count: 1025))
        }
    }

    @Test func joinWithAnInvalidTokenIsRefused() throws {
        let directory = try F.directory(channels: ["general"], users: [F.user("ann")])
        var random = DirectoryRandom(seed: 31)
        let channel = try F.channelID(directory, "general")
        #expect(throws: DirectoryError.invalidPushToken("longer than 1024 bytes")) {
            try directory.planJoin(channel: channel, user: "ann", device: "phone", displayName: nil, receiveOnly: false,
                                   pushToken: Array(repeating: 0, count: 1025), now: F.date(0), random: &random)
        }
        #expect(throws: DirectoryError.invalidPushToken("empty")) {
            try directory.planJoin(channel: channel, user: "ann", device: "phone", displayName: nil, receiveOnly: false,
                                   pushToken: [], now: F.date(0), random: &random)
        }
    }

    @Test func planPushTokenReplacesOnlyTheTokenAndChangesNothingUntilApplied() throws {
        var directory = try F.directory(channels: ["general"], users: [F.user("ann")])
        var random = DirectoryRandom(seed: 32)
        let m = try F.join(&directory, "general", user: "ann", pushToken: [1], random: &random)
        let planned = try directory.planPushToken(member: m.id, token: [9, 9, 9, 9])
        var expected = m
        expected.pushToken = [9, 9, 9, 9]
        #expect(planned == expected)
        #expect(directory.memberships[m.id]?.pushToken == [1])
        directory.apply(.putMembership(planned))
        #expect(directory.memberships[m.id]?.pushToken == [9, 9, 9, 9])
        #expect(directory.memberCount(of: m.channel) == 1)
    }

    @Test func planPushTokenForUnknownMemberIsRefused() throws {
        let directory = try F.directory(channels: ["general"], users: [F.user("ann")])
        #expect(throws: DirectoryError.noSuchMember("0123456789ab")) {
            try directory.planPushToken(member: MemberID("0123456789ab"), token: [1])
        }
    }

    @Test func planPushTokenValidatesTheToken() throws {
        var directory = try F.directory(channels: ["general"], users: [F.user("ann")])
        var random = DirectoryRandom(seed: 33)
        let m = try F.join(&directory, "general", user: "ann", random: &random)
        #expect(throws: DirectoryError.invalidPushToken("empty")) { try directory.planPushToken(member: m.id, token: []) }
        #expect(throws: DirectoryError.invalidPushToken("longer than 1024 bytes")) {
            try directory.planPushToken(member: m.id, token: Array(repeating: 2, count: 1025))
        }
    }
}

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
        for (index, (channel, user, device)) in [("a", "ann", "p"), ("a", "bob", "p"), ("b", "bob", "q"), ("a", "ann", "q")].enumerated() {
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
        let plan = try rebuilt.planJoin(channel: a, user: "bob", device: "z", displayName: nil, receiveOnly: false,
                                        pushToken: nil, now: F.date(0), random: &random)
        #expect(!source.members(of: a).map(\.ssrc).contains(plan.membership.ssrc))
    }
}

@Suite("Directory: finding members")
struct DirectoryFindMemberTests {
    /// Channel "general": ann/phone "Ann" (t=1), bob/phone "Bobby" (t=2), bob/tablet "Tab" (t=3),
    /// carol/radio "ann" (t=4).
    func populated() throws -> (ChannelDirectory, ChannelID, [String: Membership]) {
        var directory = try F.directory(channels: ["general", "other"],
                                        users: [F.user("ann"), F.user("bob"), F.user("carol")])
        var random = DirectoryRandom(seed: 51)
        var byKey: [String: Membership] = [:]
        byKey["ann"] = try F.join(&directory, "general", user: "ann", device: "phone", displayName: "Ann", at: 1, random: &random)
        byKey["bob-phone"] = try F.join(&directory, "general", user: "bob", device: "phone", displayName: "Bobby", at: 2, random: &random)
        byKey["bob-tablet"] = try F.join(&directory, "general", user: "bob", device: "tablet", displayName: "Tab", at: 3, random: &random)
        byKey["carol"] = try F.join(&directory, "general", user: "carol", device: "radio", displayName: "ann", at: 4, random: &random)
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
        for index in 0..<20 { try F.join(&directory, "general", user: "ann", device: "d\(index)", at: 5, random: &random) }
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
        let carol = try F.join(&directory, "general", user: "carol", device: "lead", displayName: "Carol", random: &random)
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

@Suite("Directory: member ids")
struct DirectoryMemberIDTests {
    @Test func randomMemberIDIsTwelveLowercaseHexDigitsOfTheLow48Bits() {
        struct Fixed: RandomNumberGenerator {
            var value: UInt64
            mutating func next() -> UInt64 { value }
        }
        var small = Fixed(value: 0xAB)
        #expect(MemberID.random(using: &small).rawValue == "0000000000ab")
        var big = Fixed(value: 0xFFFF_1234_5678_9ABC)
        #expect(MemberID.random(using: &big).rawValue == "123456789abc")
        for _ in 0..<50 { #expect(F.isMemberIDText(MemberID.random().rawValue)) }
    }

    @Test func memberIDsCompareByRawValue() {
        #expect(MemberID("00a") < MemberID("00b"))
        #expect(!(MemberID("b") < MemberID("a")))
        #expect(MemberID("x").description == "x")
    }
}

@Suite("Directory: clock")
struct DirectoryClockTests {
    @Test func addingAPositiveDurationMovesForward() {
        #expect(PTTInstant(nanoseconds: 1_000) + .nanoseconds(500) == PTTInstant(nanoseconds: 1_500))
        #expect(PTTInstant.zero + .milliseconds(3) == PTTInstant(nanoseconds: 3_000_000))
        #expect(PTTInstant(nanoseconds: 7) + .seconds(2) == PTTInstant(nanoseconds: 2_000_000_007))
        #expect(PTTInstant(nanoseconds: 7) + .zero == PTTInstant(nanoseconds: 7))
    }

    @Test func addingANegativeDurationMovesBack() {
        #expect(PTTInstant(nanoseconds: 5_000_000) + .milliseconds(-2) == PTTInstant(nanoseconds: 3_000_000))
        #expect(PTTInstant(nanoseconds: 1_000) + .nanoseconds(-1_000) == .zero)
    }

    @Test func addingANegativeDurationSaturatesAtZero() {
        #expect(PTTInstant(nanoseconds: 500) + .nanoseconds(-1_000) == .zero)
        #expect(PTTInstant(nanoseconds: 999_999) + .milliseconds(-1) == .zero)
        #expect(PTTInstant.zero + .seconds(-1) == .zero)
        #expect(PTTInstant(nanoseconds: 1_000) + .seconds(-1_000_000) == .zero)
    }

    @Test func sinceIsTheElapsedTime() {
        let earlier = PTTInstant(nanoseconds: 1_000_000)
        let later = PTTInstant(nanoseconds: 4_500_000)
        #expect(later.since(earlier) == .microseconds(3_500))
        #expect((earlier + .seconds(3)).since(earlier) == .seconds(3))
    }

    @Test func sinceIsZeroWhenEarlierIsLaterOrEqual() {
        let a = PTTInstant(nanoseconds: 1_000)
        let b = PTTInstant(nanoseconds: 2_000)
        #expect(a.since(b) == .zero)
        #expect(a.since(a) == .zero)
        #expect(PTTInstant.zero.since(PTTInstant(nanoseconds: .max)) == .zero)
    }

    @Test func instantsAreOrderedByNanoseconds() {
        #expect(PTTInstant(nanoseconds: 1) < PTTInstant(nanoseconds: 2))
        #expect(!(PTTInstant(nanoseconds: 2) < PTTInstant(nanoseconds: 2)))
        #expect(PTTInstant.zero < PTTInstant(nanoseconds: 1))
        #expect(PTTInstant(nanoseconds: 1_500_000_000).description == "t+1.5s")
    }

    @Test func durationMillisecondsRoundsWholeMilliseconds() {
        #expect(Duration.seconds(2).milliseconds == 2_000)
        #expect(Duration.milliseconds(1_234).milliseconds == 1_234)
        #expect(Duration.microseconds(1_999).milliseconds == 1)
        #expect(Duration.nanoseconds(999_999).milliseconds == 0)
        #expect(Duration.zero.milliseconds == 0)
        #expect(Duration.milliseconds(-3).milliseconds == -3)
        #expect(Duration.seconds(1.5).milliseconds == 1_500)
    }

    @Test func durationNanosecondsIncludesTheFraction() {
        #expect(Duration.seconds(3).nanoseconds == 3_000_000_000)
        #expect((Duration.seconds(2) + .nanoseconds(17)).nanoseconds == 2_000_000_017)
        #expect(Duration.nanoseconds(-1).nanoseconds == -1)
        #expect((Duration.seconds(-1) - .milliseconds(500)).nanoseconds == -1_500_000_000)
    }

    @Test func durationNanosecondsSaturatesOnOverflow() {
        #expect(Duration.seconds(Int64.max).nanoseconds == .max)
        #expect(Duration.seconds(Int64.min).nanoseconds == .min)
    }
}
