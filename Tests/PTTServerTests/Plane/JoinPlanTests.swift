import Foundation
import PTTCore
import PTTProtocol
import Testing

@testable import PTTServer

/// A `join` turned into directory changes or refused, without sockets or storage.
@Suite struct JoinPlanTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let device = SessionTable.DeviceKey(user: "ana", device: "phone")

    static func directory(channels: [String] = ["deck"], members: Int = 0) -> ChannelDirectory {
        let users =
            [User(name: "ana", secretHash: [1], salt: [2], createdAt: now)]
            + (0..<members).map { User(name: "u\($0)", secretHash: [1], salt: [2], createdAt: now) }
        let made = channels.enumerated().map { Channel(id: ChannelID(), name: $0.element, createdAt: now) }
        var directory = ChannelDirectory(channels: made, users: users, memberships: [])
        var random = SecureRandom()  // not SystemRandomNumberGenerator: see the comment on SecureRandom
        for n in 0..<members {
            let planned = try! directory.planJoin(
                channel: made[0].id, user: "u\(n)", device: "d", displayName: nil, receiveOnly: false,
                pushToken: nil, now: now, random: &random)
            directory.apply([.putMembership(planned.membership)])
        }
        return directory
    }

    static func plan(
        _ join: Join, in directory: inout ChannelDirectory,
        configure: (inout ServerConfiguration) -> Void = { _ in }
    ) -> Result<JoinPlan, JoinPlan.Refusal> {
        var configuration = ServerConfiguration()
        configure(&configuration)
        return Result { () throws(JoinPlan.Refusal) in
            try JoinPlan.make(join, device: device, in: &directory, configuration: configuration, now: now)
        }
    }

    static func refusal(_ result: Result<JoinPlan, JoinPlan.Refusal>) -> ErrorCode? {
        if case .failure(let refusal) = result { refusal.code } else { nil }
    }

    @Test func aJoinOfAnExistingChannelStoresOneMembershipAndLeavesTheDirectoryWithIt() throws {
        var directory = Self.directory()
        let plan = try Self.plan(Join(channel: "deck", displayName: "Ana"), in: &directory).get()
        #expect(plan.isNew && !plan.createdChannel)
        #expect(plan.changes.count == 1)
        #expect(
            plan.membership.displayName == "Ana" && plan.membership.user == "ana" && plan.membership.device == "phone")
        #expect(directory.membership(channel: plan.channel.id, user: "ana", device: "phone") == plan.membership)
        // The same device again is a re-join of the same membership, not a new one.
        let again = try Self.plan(Join(channel: "deck"), in: &directory).get()
        #expect(!again.isNew && again.membership.id == plan.membership.id && again.others.isEmpty)
    }

    @Test func anUnknownChannelIsRefusedUnlessChannelsAreCreatedOnJoin() throws {
        var directory = Self.directory()
        #expect(
            Self.refusal(Self.plan(Join(channel: "bridge"), in: &directory) { $0.createChannelsOnJoin = false })
                == .noSuchChannel)
        let created = try Self.plan(Join(channel: "bridge"), in: &directory) { $0.createChannelsOnJoin = true }.get()
        #expect(created.createdChannel && created.changes.count == 2)
        #expect(directory.channel(named: "bridge") != nil)
        // A channel id is never created, even when names are.
        let id = ChannelID().description
        #expect(
            Self.refusal(Self.plan(Join(channel: id), in: &directory) { $0.createChannelsOnJoin = true })
                == .noSuchChannel)
    }

    @Test func refusalsAreInTheOrderAClientSeesThem() {
        var directory = Self.directory()
        // The channel is checked before the token, the token before the suites.
        #expect(
            Self.refusal(
                Self.plan(Join(channel: "nowhere", pushToken: "zz", srtpSuites: ["ROT13"]), in: &directory) {
                    $0.createChannelsOnJoin = false
                }) == .noSuchChannel)
        let token = Self.plan(Join(channel: "deck", pushToken: "zz", srtpSuites: ["ROT13"]), in: &directory)
        #expect(Self.refusal(token) == .badRequest)
        if case .failure(let refusal) = token { #expect(refusal.message == "pushToken is not hex") }
        let suites = Self.plan(Join(channel: "deck", pushToken: "abcd", srtpSuites: ["ROT13"]), in: &directory)
        if case .failure(let refusal) = suites {
            #expect(refusal.message.hasPrefix("none of the SRTP suites offered"))
        } else {
            Issue.record("a join offering no supported suite was planned")
        }
        #expect(
            Self.refusal(
                Self.plan(Join(channel: "deck", displayName: String(repeating: "x", count: 500)), in: &directory))
                == .badRequest)
    }

    @Test func theNewMemberIsAnnouncedToTheMembersBeforeItThatAskedAndAsksByChannelSize() throws {
        var small = Self.directory(members: 2)
        let plan = try Self.plan(Join(channel: "deck"), in: &small) { $0.memberEventsUpTo = 3 }.get()
        #expect(plan.membership.memberEvents)
        #expect(Set(plan.others.map(\.user)) == ["u0", "u1"])
        var large = Self.directory(members: 3)
        let quiet = try Self.plan(Join(channel: "deck"), in: &large) { $0.memberEventsUpTo = 3 }.get()
        #expect(!quiet.membership.memberEvents)
        var asked = Self.directory(members: 3)
        #expect(
            try Self.plan(Join(channel: "deck", memberEvents: true), in: &asked) { $0.memberEventsUpTo = 3 }.get()
                .membership.memberEvents)
    }

    @Test func aPushTokenIsStoredAsBytes() throws {
        var directory = Self.directory()
        let plan = try Self.plan(Join(channel: "deck", pushToken: "00ff10"), in: &directory).get()
        #expect(plan.membership.pushToken == [0x00, 0xFF, 0x10])
    }
}
