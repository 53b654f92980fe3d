/// Which channels a broadcast reaches, and on which membership each device hears it (Docs/PROTOCOL.md 5.42): decided
/// from the directory alone, so that the rules are tested without a server.
///
/// The sender's channel comes first, then the channels asked for in their order (`all`: every group channel, by
/// name). A device that is a member of several of them hears the broadcast once, on its membership in the first:
/// its memberships in the later ones are in ``skips``.
public struct BroadcastPlan: Sendable, Equatable {
    /// The sender's channel: its floor is the sender's, its stream carries the audio.
    public let source: ChannelID
    /// The sender's membership in `source`.
    public let sender: MemberID
    /// The other channels, in the broadcast's order, each once.
    public let targets: [ChannelID]
    /// Per target channel, the memberships whose device hears the broadcast in an earlier channel.
    public let skips: [ChannelID: Set<MemberID>]

    /// Why a broadcast cannot start; ``message`` says it to the sender.
    public enum Refusal: Error, Equatable, Sendable {
        /// The sender's user lacks the broadcast right.
        case notPermitted(user: String)
        /// A receive-only member cannot talk.
        case receiveOnly
        /// Neither channels nor `all` were given, or `all` found no other channel.
        case noChannels
        /// More channels than one broadcast may name.
        case tooMany(Int, limit: Int)
        /// A name in `to` is no channel.
        case noSuchChannel(String)
        /// A name in `to` is a private call's channel.
        case privateCall(String)
        /// A channel of the broadcast is busy: in emergency, or in another broadcast (`why` says which).
        case busy(channel: String, why: String)

        public var message: String {
            switch self {
            case .notPermitted(let user):
                "user '\(user)' may not broadcast: an operator gives the right (pttctl user rights \(user) broadcast)"
            case .receiveOnly: "a receive-only member cannot broadcast"
            case .noChannels: "a broadcast needs channels: 'to' names them, or 'all': true"
            case .tooMany(let count, let limit): "a broadcast reaches at most \(limit) channels, not \(count)"
            case .noSuchChannel(let name): "no channel '\(name)'"
            case .privateCall(let name): "'\(name)' is a private call, not a channel to broadcast to"
            case .busy(let channel, let why): "'\(channel)' is \(why)"
            }
        }
    }

    /// Plans a broadcast by `sender` (its membership in `source`) to the channels named in `names`, or to every
    /// group channel (`all`). `busy` says why a channel cannot take part now (an emergency, another broadcast), nil
    /// when it can.
    public static func plan(
        sender: Membership, source: Channel, to names: [String], all: Bool, directory: ChannelDirectory,
        maxChannels: Int, busy: (Channel) -> String?
    ) throws(Refusal) -> BroadcastPlan {
        guard directory.users[sender.user]?.rights.contains(.broadcast) == true else {
            throw .notPermitted(user: sender.user)
        }
        guard !sender.receiveOnly else { throw .receiveOnly }
        var channels: [Channel] = [source]
        var seen: Set<ChannelID> = [source.id]
        if all {
            for channel in directory.channels.values.sorted(by: { $0.name < $1.name }) where channel.kind == .group {
                if seen.insert(channel.id).inserted { channels.append(channel) }
            }
        }
        for name in names {
            guard let channel = directory.channel(named: name) else { throw .noSuchChannel(name) }
            guard channel.kind == .group else { throw .privateCall(name) }
            if seen.insert(channel.id).inserted { channels.append(channel) }
        }
        guard channels.count > 1 else { throw .noChannels }
        guard channels.count <= maxChannels else { throw .tooMany(channels.count, limit: maxChannels) }
        for channel in channels {
            if let why = busy(channel) { throw .busy(channel: channel.name, why: why) }
        }
        let order = channels.map(\.id)
        return BroadcastPlan(
            source: source.id, sender: sender.id, targets: Array(order.dropFirst()),
            skips: skips(in: order, directory: directory))
    }

    /// One copy per device: of the memberships in `channels` (a broadcast's, in its order), the device's first hears
    /// it, and its later ones are skipped. Decided again whenever a broadcast's channels or their members change (a
    /// device that joins a second channel mid-broadcast, or leaves the one it heard it on).
    public static func skips(in channels: [ChannelID], directory: ChannelDirectory) -> [ChannelID: Set<MemberID>] {
        var served: Set<DeviceRef> = []
        var skips: [ChannelID: Set<MemberID>] = [:]
        for channel in channels {
            for member in directory.members(of: channel)
            where !served.insert(DeviceRef(user: member.user, device: member.device)).inserted {
                skips[channel, default: []].insert(member.id)
            }
        }
        return skips
    }
}
