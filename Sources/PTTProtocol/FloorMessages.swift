/// `floor-request` and `floor-release` both name a channel.
public struct FloorCommand: Codable, Sendable, Equatable {
    public var id: Int?
    /// Channel name or UUID.
    public var channel: String
    public init(id: Int? = nil, channel: String) {
        self.id = id
        self.channel = channel
    }
}

/// `floor-granted`: you may talk, for at most `talkTimeMs`.
public struct FloorGranted: Codable, Sendable, Equatable {
    public var re: Int?
    public var channel: ChannelInfo
    public var talkTimeMs: Int
    public init(re: Int? = nil, channel: ChannelInfo, talkTimeMs: Int) {
        self.re = re
        self.channel = channel
        self.talkTimeMs = talkTimeMs
    }
}

/// `floor-denied`: the request failed; `cause` says why.
public struct FloorDenied: Codable, Sendable, Equatable {
    public var re: Int?
    public var channel: ChannelInfo
    /// `another-member-has-permission`, `only-one-participant`, `receive-only` or `queue-full`.
    public var cause: FloorDenialCause
    public init(re: Int? = nil, channel: ChannelInfo, cause: FloorDenialCause) {
        self.re = re
        self.channel = channel
        self.cause = cause
    }
}

/// `floor-queued`: you wait at `position` (1 = next). Sent again whenever the position changes.
public struct FloorQueued: Codable, Sendable, Equatable {
    public var re: Int?
    public var channel: ChannelInfo
    public var position: Int
    public init(re: Int? = nil, channel: ChannelInfo, position: Int) {
        self.re = re
        self.channel = channel
        self.position = position
    }
}

/// `floor-taken`: told to every member when someone gets the floor.
public struct FloorTaken: Codable, Sendable, Equatable {
    public var channel: ChannelInfo
    public var member: MemberInfo
    public init(channel: ChannelInfo, member: MemberInfo) {
        self.channel = channel
        self.member = member
    }
}

/// `floor-idle`, `floor-queue-cancelled` (to a member that left the queue) and `floor-released` (the answer
/// to every `floor-release`): name only the channel.
public struct FloorChannelEvent: Codable, Sendable, Equatable {
    public var re: Int?
    public var channel: ChannelInfo
    public init(re: Int? = nil, channel: ChannelInfo) {
        self.re = re
        self.channel = channel
    }
}

/// `floor-revoked`: told to the holder that lost the floor.
public struct FloorRevoked: Codable, Sendable, Equatable {
    public var channel: ChannelInfo
    /// `end-of-media`, `talk-time-exceeded`, `preempted` or `revoked-by-operator`.
    public var cause: FloorRevocationCause
    public init(channel: ChannelInfo, cause: FloorRevocationCause) {
        self.channel = channel
        self.cause = cause
    }
}

/// `floor-revoke-pending`: a higher-priority member asked; the holder loses the floor after `graceMs`.
public struct FloorRevokePending: Codable, Sendable, Equatable {
    public var channel: ChannelInfo
    public var by: MemberInfo
    public var graceMs: Int
    public init(channel: ChannelInfo, by: MemberInfo, graceMs: Int) {
        self.channel = channel
        self.by = by
        self.graceMs = graceMs
    }
}
