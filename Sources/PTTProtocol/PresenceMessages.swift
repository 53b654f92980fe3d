/// `presence`: who of my channel can be reached now (the browser walkie-talkie asks every few seconds).
/// Answered by `presence-report`, or an `error` (`no-such-channel`, or `not-a-member` when I am not a member of it).
public struct PresenceRequest: Codable, Sendable, Equatable {
    public var id: Int?
    /// Channel name or UUID.
    public var channel: String
    public init(id: Int? = nil, channel: String) {
        self.id = id
        self.channel = channel
    }
}

/// One member in a `presence-report`.
public struct MemberPresence: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var user: String
    public var receiveOnly: Bool
    /// The member's device has a live `app` connection.
    public var connected: Bool
    /// The relay has heard the member's audio or keep-alives within its silence timeout: it hears the channel now.
    public var audioReachable: Bool
    /// How the server would wake it at the next burst: `local-push`, `apns` or `none`.
    public var wakeRoute: WakeTransport
    public init(
        id: String, name: String, user: String, receiveOnly: Bool, connected: Bool, audioReachable: Bool,
        wakeRoute: WakeTransport
    ) {
        self.id = id
        self.name = name
        self.user = user
        self.receiveOnly = receiveOnly
        self.connected = connected
        self.audioReachable = audioReachable
        self.wakeRoute = wakeRoute
    }
}

/// `presence-report`: the channel's members, oldest first, at most ``PresenceReport/maxMembersListed``.
public struct PresenceReport: Codable, Sendable, Equatable {
    public var re: Int?
    public var channel: ChannelInfo
    public var members: [MemberPresence]
    /// How many members the channel has in all.
    public var memberCount: Int
    /// The most members a report lists (so the frame stays well under 64 KiB).
    public static let maxMembersListed = 200
    public init(re: Int? = nil, channel: ChannelInfo, members: [MemberPresence], memberCount: Int) {
        self.re = re
        self.channel = channel
        self.members = members
        self.memberCount = memberCount
    }
}
