/// A broadcast as every member of its channels sees it (Docs/PROTOCOL.md 5.42).
public struct BroadcastInfo: Codable, Sendable, Equatable {
    /// The broadcast's id (a UUID string): what `DELETE /api/broadcasts/ID` names.
    public var id: String
    /// The sender's membership (its display name and user).
    public var speaker: MemberInfo
    /// The channels' names, the sender's first.
    public var channels: [String]
    /// When it began, in milliseconds since 1970.
    public var since: Int64

    public init(id: String, speaker: MemberInfo, channels: [String], since: Int64) {
        self.id = id
        self.speaker = speaker
        self.channels = channels
        self.since = since
    }
}

/// `broadcast`: talk on `channel` to it and to the channels in `to`, or to every channel (`all`).
public struct BroadcastRequest: Codable, Sendable, Equatable {
    public var id: Int?
    /// The sender's channel (name or UUID): its floor is taken, its stream carries the audio.
    public var channel: String
    /// The other channels (names or UUIDs).
    public var to: [String]?
    /// Every channel of the server (private calls' excepted).
    public var all: Bool?

    /// The most channels one broadcast may name.
    public static let maxChannels = 64

    public init(id: Int? = nil, channel: String, to: [String]? = nil, all: Bool? = nil) {
        self.id = id
        self.channel = channel
        self.to = to
        self.all = all
    }
}

/// `broadcast-started`: to the sender with `re`, to every member of each channel without.
public struct BroadcastStarted: Codable, Sendable, Equatable {
    public var re: Int?
    /// The channel this event is for (the sender's, for the sender).
    public var channel: ChannelInfo
    public var broadcast: BroadcastInfo

    public init(re: Int? = nil, channel: ChannelInfo, broadcast: BroadcastInfo) {
        self.re = re
        self.channel = channel
        self.broadcast = broadcast
    }
}

/// Why a broadcast ended: `broadcast-ended.reason`.
public enum BroadcastEndReason: WireValue {
    /// The sender let go of its floor, or its talk timers ran out.
    case released
    /// An operator ended it.
    case endedByOperator
    /// An emergency took the sender's floor.
    case preempted
    /// The sender's membership ended.
    case left
    /// A value from a newer server.
    case unknown(String)

    public static let known: [BroadcastEndReason] = [.released, .endedByOperator, .preempted, .left]

    public var rawValue: String {
        switch self {
        case .released: "released"
        case .endedByOperator: "operator"
        case .preempted: "preempted"
        case .left: "left"
        case .unknown(let value): value
        }
    }
}

/// `broadcast-ended`: to every member of each channel still in the broadcast.
public struct BroadcastEnded: Codable, Sendable, Equatable {
    public var channel: ChannelInfo
    public var broadcast: BroadcastInfo
    public var reason: BroadcastEndReason

    public init(channel: ChannelInfo, broadcast: BroadcastInfo, reason: BroadcastEndReason) {
        self.channel = channel
        self.broadcast = broadcast
        self.reason = reason
    }
}
