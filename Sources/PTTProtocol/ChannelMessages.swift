/// A channel as clients see it.
public struct ChannelInfo: Codable, Sendable, Equatable {
    /// The channel UUID, lowercase, as the PushToTalk framework uses it.
    public var id: String
    public var name: String
    public var imageURL: String?
    public init(id: String, name: String, imageURL: String? = nil) {
        self.id = id
        self.name = name
        self.imageURL = imageURL
    }
}

/// One member of a channel as other members see it.
public struct MemberInfo: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var user: String
    public var priority: Int
    public var receiveOnly: Bool
    public init(id: String, name: String, user: String, priority: Int, receiveOnly: Bool) {
        self.id = id
        self.name = name
        self.user = user
        self.priority = priority
        self.receiveOnly = receiveOnly
    }
}

/// What the audio relay needs to know about a member's media stream.
public struct MediaParameters: Codable, Sendable, Equatable {
    /// The SSRC this member must send with; unique on the server.
    public var ssrc: UInt32
    /// The SSRC of the one continuous stream the relay sends to this member (stable across speakers;
    /// the current speaker's SSRC is in the CSRC list). Never equal to `ssrc`.
    public var listenSSRC: UInt32
    /// The relay's UDP port.
    public var port: Int
    /// `srtp` or `none`.
    public var security: MediaSecurity
    /// The SRTP crypto suite, e.g. `AES_CM_128_HMAC_SHA1_80`; absent when security is `none`.
    public var suite: String?
    /// Base64 of the SRTP master key and salt (30 bytes for `AES_CM_128_HMAC_SHA1_80`, 28 for
    /// `AEAD_AES_128_GCM`); absent when security is `none`.
    public var key: String?
    /// The RTP payload type for Opus.
    public var payloadType: Int
    public init(
        ssrc: UInt32, listenSSRC: UInt32, port: Int, security: MediaSecurity, suite: String?, key: String?,
        payloadType: Int
    ) {
        self.ssrc = ssrc
        self.listenSSRC = listenSSRC
        self.port = port
        self.security = security
        self.suite = suite
        self.key = key
        self.payloadType = payloadType
    }
}

/// The floor of a channel at one moment.
public struct FloorState: Codable, Sendable, Equatable {
    /// `idle` or `taken`.
    public var state: FloorStatus
    /// The member holding the floor, when taken.
    public var holder: MemberInfo?
    /// Talk time the holder has left, in milliseconds, when taken.
    public var talkTimeLeftMs: Int?
    /// Member ids waiting, first in line first: at most ``FloorState/maxQueueListed`` of them.
    public var queue: [String]
    /// How many members wait in all.
    public var queueLength: Int
    /// The most queue entries a `FloorState` lists.
    public static let maxQueueListed = 64
    public init(
        state: FloorStatus, holder: MemberInfo? = nil, talkTimeLeftMs: Int? = nil, queue: [String] = [],
        queueLength: Int? = nil
    ) {
        self.state = state
        self.holder = holder
        self.talkTimeLeftMs = talkTimeLeftMs
        self.queue = queue
        self.queueLength = queueLength ?? queue.count
    }
}

/// `join`: become a member of a channel (or refresh an existing membership).
public struct Join: Codable, Sendable, Equatable {
    public var id: Int?
    /// Channel name or UUID.
    public var channel: String
    /// The name other members see; defaults to the user name.
    public var displayName: String?
    /// Join to listen only; a user marked receive-only is receive-only whatever this says.
    public var receiveOnly: Bool?
    /// The ephemeral push token, hex; replaces any token of a previous join.
    public var pushToken: String?
    /// The SRTP suites the client can use for this membership, most preferred first (e.g.
    /// `["AEAD_AES_128_GCM", "AES_CM_128_HMAC_SHA1_80"]`); the server takes the first it speaks. Absent:
    /// `AES_CM_128_HMAC_SHA1_80`.
    public var srtpSuites: [String]?
    /// Whether to be told of other members joining and leaving (`member-joined`, `member-left`). Absent: only
    /// while the channel is small when this member joins (the server's `memberEventsUpTo`, 64 by default);
    /// `joined` says which the member got.
    public var memberEvents: Bool?
    public init(
        id: Int? = nil, channel: String, displayName: String? = nil, receiveOnly: Bool? = nil, pushToken: String? = nil,
        srtpSuites: [String]? = nil, memberEvents: Bool? = nil
    ) {
        self.id = id
        self.channel = channel
        self.displayName = displayName
        self.receiveOnly = receiveOnly
        self.pushToken = pushToken
        self.srtpSuites = srtpSuites
        self.memberEvents = memberEvents
    }
}

/// `joined`: the membership, with everything the client needs for media.
public struct Joined: Codable, Sendable, Equatable {
    public var re: Int?
    public var channel: ChannelInfo
    public var member: MemberInfo
    public var media: MediaParameters
    public var floor: FloorState
    /// Members of the channel, oldest first: at most ``Joined/maxMembersListed`` of them (so the frame stays
    /// under 64 KiB); empty in `welcome`.
    public var members: [MemberInfo]
    /// How many members the channel has in all.
    public var memberCount: Int
    /// Whether this member is told of other members joining and leaving (absent from servers before it).
    public var memberEvents: Bool?
    /// Whether the channel's bursts are recorded now, so `replay` can find one (absent from servers before it).
    public var recorded: Bool?
    /// The channel's emergency, while one holds (absent otherwise, and from servers before it).
    public var emergency: EmergencyState?
    /// The most members a `joined` lists.
    public static let maxMembersListed = 64
    public init(
        re: Int? = nil, channel: ChannelInfo, member: MemberInfo, media: MediaParameters, floor: FloorState,
        members: [MemberInfo],
        memberCount: Int? = nil, memberEvents: Bool? = nil, recorded: Bool? = nil, emergency: EmergencyState? = nil
    ) {
        self.re = re
        self.channel = channel
        self.member = member
        self.media = media
        self.floor = floor
        self.members = members
        self.memberCount = memberCount ?? members.count
        self.memberEvents = memberEvents
        self.recorded = recorded
        self.emergency = emergency
    }
}

/// `leave`: end a membership.
public struct Leave: Codable, Sendable, Equatable {
    public var id: Int?
    public var channel: String
    public init(id: Int? = nil, channel: String) {
        self.id = id
        self.channel = channel
    }
}

/// `left`: a membership ended: the member left, was kicked, or the channel was deleted.
public struct Left: Codable, Sendable, Equatable {
    public var re: Int?
    public var channel: ChannelInfo
    /// `left`, `kicked`, `channel-deleted` or `user-removed`.
    public var reason: LeaveReason
    public init(re: Int? = nil, channel: ChannelInfo, reason: LeaveReason) {
        self.re = re
        self.channel = channel
        self.reason = reason
    }
}

/// `push-token`: register the ephemeral push token of a membership (hex, any length from 1 to 1024 bytes).
public struct PushToken: Codable, Sendable, Equatable {
    public var id: Int?
    public var channel: String
    public var token: String
    public init(id: Int? = nil, channel: String, token: String) {
        self.id = id
        self.channel = channel
        self.token = token
    }
}

/// `push-token-registered`: the token is stored.
public struct PushTokenRegistered: Codable, Sendable, Equatable {
    public var re: Int?
    public var channel: ChannelInfo
    public init(re: Int? = nil, channel: ChannelInfo) {
        self.re = re
        self.channel = channel
    }
}

/// `member-joined` / `member-left`: told to the other members of a channel.
public struct MemberEvent: Codable, Sendable, Equatable {
    public var channel: ChannelInfo
    public var member: MemberInfo
    public init(channel: ChannelInfo, member: MemberInfo) {
        self.channel = channel
        self.member = member
    }
}
