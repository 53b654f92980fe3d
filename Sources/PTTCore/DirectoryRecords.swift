import Foundation

/// A channel: what the PushToTalk framework calls a channel descriptor, plus its UUID.
public struct Channel: Sendable, Equatable {
    /// What a channel is for.
    public enum Kind: String, Sendable, Equatable {
        /// A talk group: members join it by name.
        case group
        /// A private call's channel (Docs/CALLS-DESIGN.md): made by the server for a call's two sides, named by its
        /// id, joined by nobody, listed only as a call.
        case call
    }

    public var id: ChannelID
    public var kind: Kind
    public var name: String
    public var imageURL: String?
    public var createdAt: Date
    /// Whether its bursts are recorded (switched with `pttctl channel record`).
    public var recording: Bool
    /// The emergency declared on it, until its declarer or an operator clears it.
    public var emergency: ChannelEmergency?
    /// Who cleared its last emergency (nil: none was cleared since this was kept).
    public var emergencyCleared: EmergencyClearing?
    public init(
        id: ChannelID, name: String, imageURL: String? = nil, createdAt: Date, recording: Bool = false,
        emergency: ChannelEmergency? = nil, emergencyCleared: EmergencyClearing? = nil, kind: Kind = .group
    ) {
        self.id = id
        self.kind = kind
        self.name = name
        self.imageURL = imageURL
        self.createdAt = createdAt
        self.recording = recording
        self.emergency = emergency
        self.emergencyCleared = emergencyCleared
    }
}

/// A user account: who may connect, and the priority and receive-only flag its memberships get.
public struct User: Sendable, Equatable {
    public var name: String
    /// A salted hash of the secret; the secret itself is never kept.
    public var secretHash: [UInt8]
    public var salt: [UInt8]
    public var priority: Int
    public var receiveOnly: Bool
    public var createdAt: Date
    /// What the user may do beyond talking and listening (declare emergencies, broadcast).
    public var rights: UserRights
    public init(
        name: String, secretHash: [UInt8], salt: [UInt8], priority: Int = 0, receiveOnly: Bool = false, createdAt: Date,
        rights: UserRights = []
    ) {
        self.name = name
        self.secretHash = secretHash
        self.salt = salt
        self.priority = priority
        self.receiveOnly = receiveOnly
        self.createdAt = createdAt
        self.rights = rights
    }
}

/// One device of one user joined to one channel. Lives until leave, kick, user removal or channel deletion;
/// connections come and go underneath it.
public struct Membership: Sendable, Equatable {
    public var id: MemberID
    public var channel: ChannelID
    public var user: String
    /// The device identifier the client chose in `hello`.
    public var device: String
    public var displayName: String
    public var priority: Int
    public var receiveOnly: Bool
    /// The ephemeral push token of this membership (opaque, variable length); replaced on every join.
    public var pushToken: [UInt8]?
    /// The SSRC the member sends with; unique within the channel.
    public var ssrc: UInt32
    /// SRTP master key and salt for this member's media, both directions (``MediaSuite/keyLength`` bytes);
    /// new with every join and every server start.
    public var mediaKey: [UInt8]
    /// The SRTP suite the member's client chose at join.
    public var mediaSuite: MediaSuite
    /// The SSRC of the stream the relay sends to this member: derived from `ssrc`, never equal to it, so
    /// the two directions never share an SRTP keystream.
    public var listenSSRC: UInt32 { ssrc ^ Self.listenSSRCMask }
    public static let listenSSRCMask: UInt32 = 0x5A5A_5A5A
    public var joinedAt: Date
    /// Whether the member is told of other members joining and leaving (`member-joined`, `member-left`);
    /// decided at every join (see ``MemberEventPolicy``).
    public var memberEvents: Bool

    public init(
        id: MemberID, channel: ChannelID, user: String, device: String, displayName: String, priority: Int,
        receiveOnly: Bool, pushToken: [UInt8]?, ssrc: UInt32, mediaKey: [UInt8], mediaSuite: MediaSuite = .default,
        joinedAt: Date,
        memberEvents: Bool = true
    ) {
        self.id = id
        self.channel = channel
        self.user = user
        self.device = device
        self.displayName = displayName
        self.priority = priority
        self.receiveOnly = receiveOnly
        self.pushToken = pushToken
        self.ssrc = ssrc
        self.mediaKey = mediaKey
        self.mediaSuite = mediaSuite
        self.joinedAt = joinedAt
        self.memberEvents = memberEvents
    }
}

/// One change to the directory. Planned by ``ChannelDirectory``, written to storage by the server,
/// and only then applied, so that nothing a client was told can be lost in a crash.
public enum DirectoryChange: Sendable, Equatable {
    case putChannel(Channel)
    case removeChannel(ChannelID)
    case putUser(User)
    case removeUser(String)
    case putMembership(Membership)
    case removeMembership(MemberID)

    /// Whether it adds, changes or removes a channel (not a user or a membership).
    public var changesAChannel: Bool {
        switch self {
        case .putChannel, .removeChannel: true
        case .putUser, .removeUser, .putMembership, .removeMembership: false
        }
    }
}
