import Foundation
import HashTreeCollections

/// Channels, users and memberships, in memory. Pure: no I/O and no clock of its own.
///
/// Requests are planned first (`plan…` functions return the changes and the result without mutating),
/// the server writes the changes to storage, then calls ``apply(_:)``. A refused request throws
/// ``DirectoryError`` and changes nothing.
///
/// The tables are persistent hash maps (`TreeDictionary`), not `Dictionary`: a copy shares them, and a change to
/// the copy copies only the nodes on the path to what it changes. The server plans each write on a copy of the
/// directory as stored; with `Dictionary` the first change to that copy copied every table whole, so a join in a
/// directory of 20,000 memberships asked for 7.5 MB (Docs/BENCHMARKS.md, "The directory's planning copy").
public struct ChannelDirectory: Sendable {
    public private(set) var channels: TreeDictionary<ChannelID, Channel> = [:]
    public private(set) var users: TreeDictionary<String, User> = [:]
    public private(set) var memberships: TreeDictionary<MemberID, Membership> = [:]
    private var channelByName: TreeDictionary<String, ChannelID> = [:]
    /// Each channel's members, oldest membership first (by `joinedAt`, then id): listing them needs no sort.
    private var membersByChannel: TreeDictionary<ChannelID, [MemberID]> = [:]
    /// Each channel's members that are told of joins and leaves (`memberEvents`): a join's announcement costs
    /// their number, not the channel's size (``MemberEventPolicy`` keeps them few in a large channel).
    private var toldByChannel: TreeDictionary<ChannelID, Set<MemberID>> = [:]
    /// Each device's memberships (a handful): a join or a hello finds them without a scan.
    private var membersByDevice: TreeDictionary<DeviceRef, Set<MemberID>> = [:]
    /// Sending SSRCs in use: unique server-wide, so the relay can find a packet's member by SSRC alone.
    public private(set) var ssrcs: TreeDictionary<UInt32, MemberID> = [:]

    /// Limits that keep every control frame well under 64 KiB.
    public static let maxImageURLBytes = 512
    /// A device joins few channels (iOS has one active PushToTalk channel at a time); `welcome` lists them all.
    public static let maxMembershipsPerDevice = 16

    public init() {}

    /// Rebuilds a directory from stored records.
    public init(channels: [Channel], users: [User], memberships: [Membership]) {
        for channel in channels { apply(.putChannel(channel)) }
        for user in users { apply(.putUser(user)) }
        for membership in memberships
        where self.channels[membership.channel] != nil && self.users[membership.user] != nil {
            apply(.putMembership(membership))
        }
    }

    // MARK: Lookups

    /// Finds a channel by name, or by UUID string.
    public func channel(named nameOrID: String) -> Channel? {
        if let id = channelByName[nameOrID] { return channels[id] }
        if let id = ChannelID(string: nameOrID) { return channels[id] }
        return nil
    }

    /// The members of a channel, oldest membership first.
    public func members(of channel: ChannelID) -> [Membership] {
        oldestMembers(of: channel, limit: .max)
    }

    /// The `limit` oldest members of a channel, oldest first: costs `limit`, not the channel's size.
    public func oldestMembers(of channel: ChannelID, limit: Int) -> [Membership] {
        (membersByChannel[channel] ?? []).prefix(limit).compactMap { memberships[$0] }
    }

    public func memberCount(of channel: ChannelID) -> Int { membersByChannel[channel]?.count ?? 0 }

    /// The members of a channel that are told of joins and leaves (`memberEvents`), in no particular order: costs
    /// their number, not the channel's size.
    public func membersTold(in channel: ChannelID) -> [Membership] {
        (toldByChannel[channel] ?? []).compactMap { memberships[$0] }
    }

    /// The membership of one device of one user in a channel.
    public func membership(channel: ChannelID, user: String, device: String) -> Membership? {
        membersByDevice[DeviceRef(user: user, device: device)]?.lazy.compactMap { memberships[$0] }.first {
            $0.channel == channel
        }
    }

    /// Every membership a device of a user holds, oldest first.
    public func memberships(user: String, device: String) -> [Membership] {
        (membersByDevice[DeviceRef(user: user, device: device)] ?? []).compactMap { memberships[$0] }
            .sorted(by: Self.olderFirst)
    }

    /// The order members are listed in: by `joinedAt`, then id.
    static func olderFirst(_ a: Membership, _ b: Membership) -> Bool { (a.joinedAt, a.id) < (b.joinedAt, b.id) }

    /// Finds a member of a channel by member id, display name, device or user name (in that order); nil if
    /// absent or ambiguous.
    public func findMember(_ reference: String, in channel: ChannelID) -> Membership? {
        let members = self.members(of: channel)
        if let byID = members.first(where: { $0.id.rawValue == reference }) { return byID }
        for key in [\Membership.displayName, \Membership.device, \Membership.user] {
            let matches = members.filter { $0[keyPath: key] == reference }
            if matches.count == 1 { return matches[0] }
            if matches.count > 1 { return nil }
        }
        return nil
    }

    // MARK: Planning

    /// Plans a new channel.
    public func planCreateChannel(
        name: String, imageURL: String? = nil, id: ChannelID = ChannelID(), now: Date
    ) throws(DirectoryError) -> Channel {
        try NameRules.validate(name, what: "channel")
        if ChannelID(string: name) != nil { throw .invalidName("a channel name cannot look like a channel id (UUID)") }
        if channelByName[name] != nil { throw .channelExists(name) }
        if channels[id] != nil { throw .channelExists(id.description) }
        if let imageURL, imageURL.utf8.count > Self.maxImageURLBytes {
            throw .invalidValue("image URL is longer than \(Self.maxImageURLBytes) bytes")
        }
        return Channel(id: id, name: name, imageURL: imageURL, createdAt: now)
    }

    /// Plans a new user with an already hashed secret.
    public func planAddUser(_ user: User) throws(DirectoryError) -> User {
        try NameRules.validate(user.name, what: "user")
        if users[user.name] != nil { throw .userExists(user.name) }
        if !(-1000...1000).contains(user.priority) { throw .invalidValue("priority must be between -1000 and 1000") }
        return user
    }

    /// Plans the removal of a user and all of its memberships.
    public func planRemoveUser(_ name: String) throws(DirectoryError) -> [Membership] {
        guard users[name] != nil else { throw .noSuchUser(name) }
        return memberships.values.filter { $0.user == name }
    }

    /// Plans a join. A device already joined keeps its member id, SSRC and keys; its display name,
    /// receive-only flag and push token are replaced (a token is ephemeral: every join brings a new one or none).
    public func planJoin<R: RandomNumberGenerator>(
        channel: ChannelID, user userName: String, device: String, displayName: String?, receiveOnly: Bool,
        pushToken: [UInt8]?, mediaSuite: MediaSuite = .default, now: Date, random: inout R
    ) throws(DirectoryError) -> (membership: Membership, isNew: Bool) {
        guard channels[channel] != nil else { throw .noSuchChannel(channel.description) }
        guard let user = users[userName] else { throw .noSuchUser(userName) }
        let name = displayName ?? user.name
        try NameRules.validate(name, what: "display")
        if let pushToken { try Self.validatePushToken(pushToken) }
        if var existing = membership(channel: channel, user: userName, device: device) {
            existing.displayName = name
            existing.receiveOnly = user.receiveOnly || receiveOnly
            existing.priority = user.priority
            existing.pushToken = pushToken
            // A fresh SRTP key with every join: the device starts a new media session with it, so no
            // keystream or replay state from an earlier session is ever reused.
            existing.mediaSuite = mediaSuite
            existing.mediaKey = Self.newMediaKey(for: mediaSuite, using: &random)
            return (existing, false)
        }
        // A call's membership does not count, and is not refused: a device in 16 channels can still take a call.
        if channels[channel]?.kind != .call,
            memberships(user: userName, device: device).count(where: { channels[$0.channel]?.kind != .call })
                >= Self.maxMembershipsPerDevice
        {
            throw .invalidValue(
                "a device may be a member of at most \(Self.maxMembershipsPerDevice) channels; leave one first")
        }
        var id = MemberID.random(using: &random)
        while memberships[id] != nil { id = MemberID.random(using: &random) }
        var ssrc: UInt32 = 0
        // Unique server-wide, and never equal to another member's listen SSRC (ssrc ^ mask) either way.
        while ssrc == 0 || ssrcs[ssrc] != nil || ssrcs[ssrc ^ Membership.listenSSRCMask] != nil
            || ssrc == Membership.listenSSRCMask
        {
            ssrc = random.next()
        }
        let key = Self.newMediaKey(for: mediaSuite, using: &random)
        let membership = Membership(
            id: id, channel: channel, user: userName, device: device, displayName: name, priority: user.priority,
            receiveOnly: user.receiveOnly || receiveOnly, pushToken: pushToken, ssrc: ssrc, mediaKey: key,
            mediaSuite: mediaSuite,
            joinedAt: now)
        return (membership, true)
    }

    /// Random SRTP master key and salt for a suite (30 bytes for the default suite).
    public static func newMediaKey<R: RandomNumberGenerator>(
        for suite: MediaSuite = .default, using random: inout R
    ) -> [UInt8] {
        (0..<suite.keyLength).map { _ in UInt8.random(in: 0...255, using: &random) }
    }

    // MARK: Applying

    /// Applies changes that have been written to storage.
    public mutating func apply(_ changes: [DirectoryChange]) {
        for change in changes { apply(change) }
    }

    /// Applies one change that has been written to storage.
    public mutating func apply(_ change: DirectoryChange) {
        switch change {
        case .putChannel(let channel):
            if let old = channels[channel.id] { channelByName[old.name] = nil }
            channels[channel.id] = channel
            channelByName[channel.name] = channel.id
        case .removeChannel(let id):
            guard let old = channels.removeValue(forKey: id) else { return }
            channelByName[old.name] = nil
            toldByChannel[id] = nil
            for member in membersByChannel.removeValue(forKey: id) ?? [] {
                guard let old = memberships.removeValue(forKey: member) else { continue }
                if ssrcs[old.ssrc] == member { ssrcs[old.ssrc] = nil }
                removeFromDevice(old)
            }
        case .putUser(let user):
            users[user.name] = user
        case .removeUser(let name):
            users[name] = nil
            for membership in memberships.values where membership.user == name {
                apply(.removeMembership(membership.id))
            }
        case .putMembership(let membership):
            let old = memberships[membership.id]
            if let old {
                if ssrcs[old.ssrc] == membership.id { ssrcs[old.ssrc] = nil }
                if old.channel != membership.channel || old.joinedAt != membership.joinedAt { removeFromChannel(old) }
                if old.user != membership.user || old.device != membership.device { removeFromDevice(old) }
            }
            if let old { toldByChannel[old.channel]?.remove(old.id) }
            memberships[membership.id] = membership
            ssrcs[membership.ssrc] = membership.id
            if membership.memberEvents { toldByChannel[membership.channel, default: []].insert(membership.id) }
            if old == nil || old!.channel != membership.channel || old!.joinedAt != membership.joinedAt {
                insertInChannel(membership)
            }
            membersByDevice[DeviceRef(user: membership.user, device: membership.device), default: []].insert(
                membership.id)
        case .removeMembership(let id):
            guard let old = memberships[id] else { return }
            toldByChannel[old.channel]?.remove(old.id)
            removeFromChannel(old)
            removeFromDevice(old)
            memberships[id] = nil
            if ssrcs[old.ssrc] == id { ssrcs[old.ssrc] = nil }
        }
    }

    /// Where `membership` goes in its channel's list (binary search on the listing order).
    private func position(of membership: Membership, in list: [MemberID]) -> Int {
        var low = 0
        var high = list.count
        while low < high {
            let middle = (low + high) / 2
            if let other = memberships[list[middle]], Self.olderFirst(other, membership) {
                low = middle + 1
            } else {
                high = middle
            }
        }
        return low
    }

    private mutating func insertInChannel(_ membership: Membership) {
        var list = membersByChannel.removeValue(forKey: membership.channel) ?? []
        list.insert(membership.id, at: position(of: membership, in: list))
        membersByChannel[membership.channel] = list
    }

    /// Removes a membership (as it is still stored in `memberships`) from its channel's list.
    private mutating func removeFromChannel(_ old: Membership) {
        guard var list = membersByChannel.removeValue(forKey: old.channel) else { return }
        let at = position(of: old, in: list)
        if at < list.count, list[at] == old.id {
            list.remove(at: at)
        } else if let index = list.firstIndex(of: old.id) {
            list.remove(at: index)
        }
        if !list.isEmpty { membersByChannel[old.channel] = list }
    }

    private mutating func removeFromDevice(_ old: Membership) {
        let device = DeviceRef(user: old.user, device: old.device)
        membersByDevice[device]?.remove(old.id)
        if membersByDevice[device]?.isEmpty == true { membersByDevice[device] = nil }
    }
}

/// One device of one user, as an index key.
/// A device: its user and device name.
struct DeviceRef: Hashable, Sendable {
    var user: String
    var device: String
}

extension MemberID {
    /// A random member id drawn from `random` (12 lowercase hex digits).
    public static func random<R: RandomNumberGenerator>(using random: inout R) -> MemberID {
        let hex = String(random.next() & 0xFFFF_FFFF_FFFF, radix: 16)
        return MemberID(String(repeating: "0", count: 12 - hex.count) + hex)
    }
}
