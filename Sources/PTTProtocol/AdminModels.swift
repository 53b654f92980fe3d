/// What `pttd` writes into `runtime.json` in its data directory once it listens: where to reach it.
public struct RuntimeInfo: Codable, Sendable, Equatable {
    public var pid: Int32
    public var controlHost: String
    public var controlPort: Int
    /// The audio relay's UDP port.
    public var mediaPort: Int?
    public var adminURL: String
    public var tls: Bool
    /// SHA-256 fingerprint of the TLS certificate, colon-separated uppercase hex; nil without TLS.
    public var fingerprint: String?
    /// Where browsers open the walkie-talkie (`https://HOST:PORT/`, with the server's certificate); nil when the
    /// web listener is off. HOST is the listener's address (`0.0.0.0` means any address of the machine).
    public var webURL: String?
    public init(
        pid: Int32, controlHost: String, controlPort: Int, mediaPort: Int? = nil, adminURL: String, tls: Bool,
        fingerprint: String?, webURL: String? = nil
    ) {
        self.webURL = webURL
        self.pid = pid
        self.controlHost = controlHost
        self.controlPort = controlPort
        self.mediaPort = mediaPort
        self.adminURL = adminURL
        self.tls = tls
        self.fingerprint = fingerprint
    }
}

/// One row of `GET /api/channels`.
public struct ChannelSummary: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var imageURL: String?
    public var members: Int
    public var connected: Int
    /// `idle` or `taken`.
    public var floor: FloorStatus
    public var speaker: String?
    public var queueLength: Int
    /// In a cluster, the node that owns the channel (runs its floor); nil when no node owns it now, and on a
    /// single server.
    public var owner: String?
    /// The level of the channel's emergency, while one holds.
    public var emergency: EmergencyGrade?
    public init(
        id: String, name: String, imageURL: String?, members: Int, connected: Int, floor: FloorStatus, speaker: String?,
        queueLength: Int, owner: String? = nil, emergency: EmergencyGrade? = nil
    ) {
        self.id = id
        self.name = name
        self.imageURL = imageURL
        self.members = members
        self.connected = connected
        self.floor = floor
        self.speaker = speaker
        self.queueLength = queueLength
        self.owner = owner
        self.emergency = emergency
    }
}

/// One member in `GET /api/channels/NAME`.
public struct MemberStatus: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var user: String
    public var device: String
    public var priority: Int
    public var receiveOnly: Bool
    public var connected: Bool
    /// Roles of the live connections of this member's device (`app`, `push-provider`).
    public var connections: [String]
    public var pushToken: Bool
    /// Whether the audio relay has heard this member (audio or keep-alive) recently enough to reach it.
    public var audioReachable: Bool
    /// Audio packets the relay dropped from this member because it did not hold the floor.
    public var droppedNotHolder: Int
    /// Wall-clock time of the device's last sign of life (hello or heartbeat acknowledgement, on any of its
    /// connections), ISO 8601; nil if none since the server started.
    public var lastHeartbeat: String?
    public var joinedAt: String
    public var ssrc: UInt32
    /// How the notifier would wake this member now: `local-push` (a live push-provider connection), `apns`
    /// (a push token and APNs credentials) or `none`.
    public var wakeRoute: WakeTransport
    /// The last wake or leave push tried for this member since the server started.
    public var lastWake: LastWakeStatus?
    /// This membership's place in its device's scan list (1: the highest priority); nil when it is not scanned.
    public var scanRank: Int?
    public init(
        id: String, name: String, user: String, device: String, priority: Int, receiveOnly: Bool, connected: Bool,
        connections: [String], pushToken: Bool, audioReachable: Bool = false, droppedNotHolder: Int = 0,
        lastHeartbeat: String?, joinedAt: String, ssrc: UInt32,
        wakeRoute: WakeTransport = .unreachable, lastWake: LastWakeStatus? = nil, scanRank: Int? = nil
    ) {
        self.id = id
        self.name = name
        self.user = user
        self.device = device
        self.priority = priority
        self.receiveOnly = receiveOnly
        self.connected = connected
        self.connections = connections
        self.pushToken = pushToken
        self.audioReachable = audioReachable
        self.droppedNotHolder = droppedNotHolder
        self.lastHeartbeat = lastHeartbeat
        self.joinedAt = joinedAt
        self.ssrc = ssrc
        self.wakeRoute = wakeRoute
        self.lastWake = lastWake
        self.scanRank = scanRank
    }
}

/// A queued member in `GET /api/channels/NAME`.
public struct QueueEntryStatus: Codable, Sendable, Equatable {
    public var position: Int
    public var member: String
    public var name: String
    public var priority: Int
    public init(position: Int, member: String, name: String, priority: Int) {
        self.position = position
        self.member = member
        self.name = name
        self.priority = priority
    }
}

/// `GET /api/channels/NAME`.
public struct ChannelDetail: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var imageURL: String?
    /// `idle` or `taken`.
    public var floor: FloorStatus
    public var speaker: MemberStatus?
    public var talkTimeLeftMs: Int?
    public var queue: [QueueEntryStatus]
    public var members: [MemberStatus]
    /// Whether the channel's bursts are recorded (its switch, or the config's list); absent from older servers.
    public var recording: Bool?
    /// On a cluster node: the nodes this node sends the channel's audio to (on its owner, the nodes with members
    /// connected there; elsewhere, the owner). Absent on a single server.
    public var nodeLinks: [String]?
    /// The channel's emergency, while one holds.
    public var emergency: ChannelEmergencyStatus?
    public init(
        id: String, name: String, imageURL: String?, floor: FloorStatus, speaker: MemberStatus?, talkTimeLeftMs: Int?,
        queue: [QueueEntryStatus], members: [MemberStatus], recording: Bool? = nil, nodeLinks: [String]? = nil,
        emergency: ChannelEmergencyStatus? = nil
    ) {
        self.id = id
        self.name = name
        self.imageURL = imageURL
        self.floor = floor
        self.speaker = speaker
        self.talkTimeLeftMs = talkTimeLeftMs
        self.queue = queue
        self.members = members
        self.recording = recording
        self.nodeLinks = nodeLinks
        self.emergency = emergency
    }
}

/// `POST /api/channels` body.
public struct CreateChannelRequest: Codable, Sendable, Equatable {
    public var name: String
    public var imageURL: String?
    public init(name: String, imageURL: String? = nil) {
        self.name = name
        self.imageURL = imageURL
    }
}

/// A user in `GET /api/users`.
public struct UserStatus: Codable, Sendable, Equatable {
    public var name: String
    public var priority: Int
    public var receiveOnly: Bool
    public var memberships: Int
    public var createdAt: String
    /// Its rights beyond talking and listening (absent from servers before them).
    public var rights: [UserRight]?
    public init(
        name: String, priority: Int, receiveOnly: Bool, memberships: Int, createdAt: String, rights: [UserRight]? = nil
    ) {
        self.name = name
        self.priority = priority
        self.receiveOnly = receiveOnly
        self.memberships = memberships
        self.createdAt = createdAt
        self.rights = rights
    }
}

/// `POST /api/users` body.
public struct AddUserRequest: Codable, Sendable, Equatable {
    public var name: String
    public var priority: Int?
    public var receiveOnly: Bool?
    /// Its rights beyond talking and listening; none when absent.
    public var rights: [UserRight]?
    public init(name: String, priority: Int? = nil, receiveOnly: Bool? = nil, rights: [UserRight]? = nil) {
        self.name = name
        self.priority = priority
        self.receiveOnly = receiveOnly
        self.rights = rights
    }
}

/// `POST /api/users` answer: the only time the secret is shown.
public struct AddUserResponse: Codable, Sendable, Equatable {
    public var name: String
    public var secret: String
    public init(name: String, secret: String) {
        self.name = name
        self.secret = secret
    }
}

/// The body of every admin API error.
public struct AdminError: Codable, Sendable, Equatable, Error, CustomStringConvertible {
    /// The ``AdminErrorCode``'s raw value (a string on the wire, so that a client can read codes it does not know).
    public var error: String
    public var message: String
    public init(_ code: AdminErrorCode, _ message: String) {
        self.error = code.rawValue
        self.message = message
    }
    /// An error with a code of its own (a client's, such as `no-server`: never one the server sends).
    public init(error: String, message: String) {
        self.error = error
        self.message = message
    }
    /// The code, if it is one this version knows.
    public var code: AdminErrorCode? { AdminErrorCode(rawValue: error) }
    public var description: String { message }
}

/// What went wrong with an admin API request, with the HTTP status that carries it.
public enum AdminErrorCode: String, Sendable, CaseIterable {
    case badRequest = "bad-request"
    case unauthorized
    case notFound = "not-found"
    case methodNotAllowed = "method-not-allowed"
    case conflict
    case tooLarge = "too-large"
    /// A reload found the config file or the certificate unusable: nothing was applied.
    case invalidConfiguration = "invalid-configuration"
    case `internal`
    /// Something the answer needs cannot be reached now (a cluster's database): try again later.
    case unavailable

    /// The HTTP status of an answer with this code.
    public var httpStatus: Int {
        switch self {
        case .badRequest: 400
        case .unauthorized: 401
        case .notFound: 404
        case .methodNotAllowed: 405
        case .conflict: 409
        case .tooLarge: 413
        case .invalidConfiguration: 422
        case .internal: 500
        case .unavailable: 503
        }
    }
}
