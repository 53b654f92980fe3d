import Foundation
import Testing

@testable import PTTCore

private typealias F = DirectoryFixture

/// A random walk over the directory: plan requests (some of them bound to be refused), apply what was
/// planned, and check the invariants after every step against a small independent model.
@Suite("Directory: random walk invariants")
struct DirectoryPropertyTests {
    static let channelNames = ["alpha", "bravo", "charlie", "delta", "echo"]
    static let userNames = ["u1", "u2", "u3", "u4", "u5", "u6"]
    static let devices = ["phone", "tablet", "watch"]

    /// What the model expects: channel names, user names and (channel name, user, device) memberships.
    struct Model {
        var channels: Set<String> = []
        var users: Set<String> = []
        var memberships: Set<[String]> = []
    }

    @Test(arguments: [UInt64(1), 2, 3], [UInt64.max, 0xFF])
    func randomWalkKeepsInvariants(seed: UInt64, mask: UInt64) throws {
        // The narrow mask makes member ids and SSRCs collide often.
        var random = DirectoryRandom(seed: seed, mask: mask)
        var choose = DirectoryRandom(seed: seed &* 0x5851_F42D_4C95_7F2D)
        var directory = ChannelDirectory()
        var model = Model()
        var clock = 0.0

        for step in 0..<1000 {
            clock += Double(Int.random(in: 0...2, using: &choose))  // equal join times happen too
            let now = F.date(clock)
            let channelName = Self.channelNames.randomElement(using: &choose)!
            let userName = Self.userNames.randomElement(using: &choose)!
            let device = Self.devices.randomElement(using: &choose)!
            let context = "step \(step)"

            switch Int.random(in: 0..<100, using: &choose) {
            case 0..<12:  // create a channel
                do {
                    let channel = try directory.planCreateChannel(name: channelName, now: now)
                    #expect(!model.channels.contains(channelName), "\(context)")
                    directory.apply(.putChannel(channel))
                    model.channels.insert(channelName)
                } catch {
                    #expect(error == .channelExists(channelName), "\(context)")
                    #expect(model.channels.contains(channelName), "\(context)")
                }

            case 12..<17:  // delete a channel, by name or by UUID
                let reference: String
                if Bool.random(using: &choose), let channel = directory.channel(named: channelName) {
                    reference = channel.id.description
                } else {
                    reference = channelName
                }
                if let channel = directory.channel(named: reference) {
                    #expect(channel.name == channelName, "\(context)")
                    directory.apply(.removeChannel(channel.id))
                    #expect(!directory.memberships.values.contains { $0.channel == channel.id }, "\(context)")
                    model.channels.remove(channelName)
                    model.memberships = model.memberships.filter { $0[0] != channelName }
                } else {
                    #expect(!model.channels.contains(channelName), "\(context)")
                }

            case 17..<27:  // add a user
                let priority = Int.random(in: -1100...1100, using: &choose)
                let receiveOnly = Int.random(in: 0..<5, using: &choose) == 0
                do {
                    let user = try directory.planAddUser(F.user(userName, priority: priority, receiveOnly: receiveOnly))
                    #expect(!model.users.contains(userName), "\(context)")
                    #expect((-1000...1000).contains(priority), "\(context)")
                    directory.apply(.putUser(user))
                    model.users.insert(userName)
                } catch {
                    if model.users.contains(userName) {
                        #expect(error == .userExists(userName), "\(context)")
                    } else {
                        #expect(error == .invalidValue("priority must be between -1000 and 1000"), "\(context)")
                        #expect(!(-1000...1000).contains(priority), "\(context)")
                    }
                }

            case 27..<31:  // remove a user; alternately through the planned removals or removeUser alone
                do {
                    let removed = try directory.planRemoveUser(userName)
                    #expect(
                        Set(removed.map(\.id))
                            == Set(directory.memberships.values.filter { $0.user == userName }.map(\.id)), "\(context)")
                    if step % 2 == 0 {
                        directory.apply(removed.map { .removeMembership($0.id) } + [.removeUser(userName)])
                    } else {
                        directory.apply(.removeUser(userName))
                    }
                    model.users.remove(userName)
                    model.memberships = model.memberships.filter { $0[1] != userName }
                } catch {
                    #expect(error == .noSuchUser(userName), "\(context)")
                    #expect(!model.users.contains(userName), "\(context)")
                }

            case 31..<75:  // join
                let token: [UInt8]? =
                    Bool.random(using: &choose)
                    ? (0..<Int.random(in: 1...40, using: &choose)).map { _ in UInt8.random(in: 0...255, using: &choose)
                    }
                    : nil
                let displayName: String? = Bool.random(using: &choose) ? "\(userName) on \(device)" : nil
                let receiveOnly = Bool.random(using: &choose)
                let channelID = directory.channel(named: channelName)?.id ?? ChannelID()
                let existing = directory.membership(channel: channelID, user: userName, device: device)
                let user = directory.users[userName]
                do {
                    let plan = try directory.planJoin(
                        channel: channelID, user: userName, device: device, displayName: displayName,
                        receiveOnly: receiveOnly, pushToken: token, now: now, random: &random)
                    #expect(model.channels.contains(channelName) && model.users.contains(userName), "\(context)")
                    let m = plan.membership
                    #expect(plan.isNew == (existing == nil), "\(context)")
                    if let existing {
                        #expect(
                            m.id == existing.id && m.ssrc == existing.ssrc && m.mediaKey != existing.mediaKey,
                            "\(context)")
                        #expect(m.joinedAt == existing.joinedAt, "\(context)")
                    } else {
                        #expect(directory.memberships[m.id] == nil, "\(context): a new member id is unused")
                        #expect(m.joinedAt == now, "\(context)")
                    }
                    #expect(m.pushToken == token, "\(context)")
                    #expect(m.displayName == displayName ?? userName, "\(context)")
                    #expect(m.receiveOnly == (receiveOnly || user?.receiveOnly == true), "\(context)")
                    #expect(m.priority == user?.priority, "\(context)")
                    // The server decides `memberEvents` after planning (MemberEventPolicy): either way, at random.
                    var stored = m
                    stored.memberEvents = Bool.random(using: &choose)
                    directory.apply(.putMembership(stored))
                    model.memberships.insert([channelName, userName, device])
                } catch {
                    if !model.channels.contains(channelName) {
                        #expect(error == .noSuchChannel(channelID.description), "\(context)")
                    } else {
                        #expect(error == .noSuchUser(userName), "\(context)")
                        #expect(!model.users.contains(userName), "\(context)")
                    }
                }

            case 75..<92:  // leave
                if let channel = directory.channel(named: channelName),
                    let member = directory.membership(channel: channel.id, user: userName, device: device)
                {
                    directory.apply(.removeMembership(member.id))
                    #expect(model.memberships.remove([channelName, userName, device]) != nil, "\(context)")
                } else {
                    #expect(!model.memberships.contains([channelName, userName, device]), "\(context)")
                }

            default:  // register a push token for some membership, or an unknown one
                let member = directory.memberships.keys.sorted().randomElement(using: &choose) ?? MemberID("none")
                let token = (0..<Int.random(in: 1...64, using: &choose)).map { _ in
                    UInt8.random(in: 0...255, using: &choose)
                }
                let before = directory.memberships[member]
                do {
                    let planned = try directory.planPushToken(member: member, token: token)
                    var expected = before
                    expected?.pushToken = token
                    #expect(planned == expected, "\(context)")
                    directory.apply(.putMembership(planned))
                } catch {
                    #expect(error == .noSuchMember(member.rawValue), "\(context)")
                    #expect(directory.memberships[member] == nil, "\(context)")
                }
            }

            try Self.checkInvariants(directory, model, context: context)
            if step % 100 == 99 { try Self.checkRebuild(directory, context: context) }
        }
    }

    static func checkInvariants(_ directory: ChannelDirectory, _ model: Model, context: String) throws {
        // The model agrees.
        #expect(Set(directory.channels.values.map(\.name)) == model.channels, "\(context)")
        #expect(Set(directory.users.keys) == model.users, "\(context)")
        let keys = directory.memberships.values.compactMap { m in
            directory.channels[m.channel].map { [$0.name, m.user, m.device] }
        }
        #expect(keys.count == directory.memberships.count, "\(context): every membership's channel exists")
        #expect(Set(keys) == model.memberships, "\(context)")
        #expect(keys.count == Set(keys).count, "\(context): one membership per channel, user and device")

        // Every membership's user exists; ids agree with their keys.
        for (id, m) in directory.memberships {
            #expect(m.id == id, "\(context)")
            #expect(directory.users[m.user] != nil, "\(context): user of \(m.id) exists")
            #expect(directory.membership(channel: m.channel, user: m.user, device: m.device) == m, "\(context)")
            #expect(m.mediaKey.count == 30, "\(context)")
        }

        // Lookups and per-channel indices agree with the tables.
        var total = 0
        for (id, channel) in directory.channels {
            #expect(channel.id == id, "\(context)")
            #expect(directory.channel(named: channel.name) == channel, "\(context)")
            #expect(directory.channel(named: id.description) == channel, "\(context)")
            let members = directory.members(of: id)
            #expect(
                Set(members.map(\.id)) == Set(directory.memberships.values.filter { $0.channel == id }.map(\.id)),
                "\(context)")
            #expect(members.count == directory.memberCount(of: id), "\(context)")
            #expect(
                Set(directory.membersTold(in: id).map(\.id)) == Set(members.filter(\.memberEvents).map(\.id)),
                "\(context): the members told of joins and leaves are indexed")
            let ssrcs = members.map(\.ssrc)
            #expect(Set(ssrcs).count == ssrcs.count, "\(context): SSRCs unique in \(channel.name)")
            #expect(!ssrcs.contains(0), "\(context)")
            #expect(
                zip(members, members.dropFirst()).allSatisfy { ($0.joinedAt, $0.id) < ($1.joinedAt, $1.id) },
                "\(context): members ordered by join time")
            total += members.count
        }
        #expect(total == directory.memberships.count, "\(context)")
        for name in channelNames where !model.channels.contains(name) {
            #expect(directory.channel(named: name) == nil, "\(context)")
        }
    }

    static func checkRebuild(_ directory: ChannelDirectory, context: String) throws {
        let rebuilt = ChannelDirectory(
            channels: Array(directory.channels.values), users: Array(directory.users.values),
            memberships: Array(directory.memberships.values))
        #expect(rebuilt.channels == directory.channels, "\(context)")
        #expect(rebuilt.users == directory.users, "\(context)")
        #expect(rebuilt.memberships == directory.memberships, "\(context)")
        for id in directory.channels.keys {
            #expect(rebuilt.members(of: id) == directory.members(of: id), "\(context)")
        }
    }
}
