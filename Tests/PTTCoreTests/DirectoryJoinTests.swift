import Foundation
import Testing

@testable import PTTCore

private typealias F = DirectoryFixture

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
            let m = try F.join(
                &directory, "big", user: "ann", device: "device-\(index)", at: Double(index), random: &random)
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
        let first = try F.join(
            &directory, "general", user: "ann", displayName: "Ann", receiveOnly: true,
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
            try directory.planJoin(
                channel: missing, user: "ann", device: "phone", displayName: nil,
                receiveOnly: false, pushToken: nil, now: F.date(0), random: &random)
        }
        #expect(throws: DirectoryError.noSuchUser("ghost")) {
            try directory.planJoin(
                channel: try F.channelID(directory, "general"), user: "ghost", device: "phone",
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
