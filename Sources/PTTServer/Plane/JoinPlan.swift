import Foundation
import PTTCore
import PTTProtocol

/// A `join` request turned into directory changes, or refused with the error its answer carries.
///
/// No I/O: the decisions are PTTCore's (``ChannelDirectory/planCreateChannel(name:imageURL:id:now:)``,
/// ``ChannelDirectory/planJoin(channel:user:device:displayName:receiveOnly:pushToken:mediaSuite:now:random:)``,
/// ``MediaSuite/choose(from:)``, ``MemberEventPolicy``); this composes them with the protocol's request and error
/// codes, in the order a client sees refusals: channel, push token, SRTP suites, then the membership itself.
struct JoinPlan {
    /// Why a join is refused.
    struct Refusal: Error {
        var code: ErrorCode
        var message: String
    }

    var channel: Channel
    var membership: Membership
    /// A new membership (not a re-join of the same device).
    var isNew: Bool
    /// The channel was created by this join (`createChannelsOnJoin`).
    var createdChannel: Bool
    /// What to store: the channel if created, then the membership.
    var changes: [DirectoryChange]
    /// The members told of the new member: those before it that asked for member events.
    var others: [Membership]

    /// Plans `join` for `device` in `directory`, which is left with the plan applied (the next join of a batch is
    /// planned against it). On a refusal `directory` may hold part of the plan: throw it away.
    static func make(
        _ join: Join, device: SessionTable.DeviceKey, in directory: inout ChannelDirectory,
        configuration: ServerConfiguration, now: Date
    ) throws(Refusal) -> JoinPlan {
        var changes: [DirectoryChange] = []
        var found = directory.channel(named: join.channel)
        if found == nil {
            guard configuration.createChannelsOnJoin, ChannelID(string: join.channel) == nil else {
                throw Refusal(code: .noSuchChannel, message: "no channel '\(join.channel)'")
            }
            do {
                let created = try directory.planCreateChannel(name: join.channel, now: now)
                changes.append(.putChannel(created))
                found = created
            } catch {
                throw Refusal(code: .badRequest, message: error.description)
            }
        }
        guard let channel = found else { throw Refusal(code: .noSuchChannel, message: "no channel '\(join.channel)'") }
        guard channel.kind == .group else {
            throw Refusal(code: .badRequest, message: "a call is not joined: its callee answers it with call-accept")
        }
        var token: [UInt8]?
        if let hex = join.pushToken {
            guard let bytes = HexCoding.decode(hex) else {
                throw Refusal(code: .badRequest, message: "pushToken is not hex")
            }
            token = bytes
        }
        guard let suite = MediaSuite.choose(from: join.srtpSuites) else {
            let spoken = MediaSuite.allCases.map(\.rawValue).joined(separator: ", ")
            throw Refusal(
                code: .badRequest, message: "none of the SRTP suites offered is supported; this server speaks \(spoken)"
            )
        }
        directory.apply(changes)
        var planned: (membership: Membership, isNew: Bool)
        var random = SecureRandom()
        do {
            planned = try directory.planJoin(
                channel: channel.id, user: device.user, device: device.device,
                displayName: join.displayName, receiveOnly: join.receiveOnly ?? false,
                pushToken: token, mediaSuite: suite, now: now, random: &random)
        } catch {
            throw Refusal(code: .badRequest, message: error.description)
        }
        let policy = MemberEventPolicy(upTo: configuration.memberEventsUpTo)
        planned.membership.memberEvents = policy.tells(
            asked: join.memberEvents, membersAfterJoin: directory.memberCount(of: channel.id) + (planned.isNew ? 1 : 0))
        // Who hears of the new member: the members before it that are told (as of this point in the batch).
        let others = planned.isNew ? directory.membersTold(in: channel.id) : []
        changes.append(.putMembership(planned.membership))
        directory.apply([.putMembership(planned.membership)])
        return JoinPlan(
            channel: channel, membership: planned.membership, isNew: planned.isNew,
            createdChannel: changes.count > 1, changes: changes, others: others)
    }
}
