/// The `aps` dictionary of a push payload. Empty (`{}`) for pushtotalk wakes, as Apple requires;
/// an alert for announcements.
public struct APS: Codable, Sendable, Equatable {
    public var alert: Alert?
    public init(alert: Alert? = nil) { self.alert = alert }

    /// A user-visible alert.
    public struct Alert: Codable, Sendable, Equatable {
        public var title: String?
        public var body: String
        public init(title: String? = nil, body: String) {
            self.title = title
            self.body = body
        }
    }
}

/// What a push carries: the same JSON over the Local Push connection (inside a `push` frame) and as the
/// body of an APNs request, so an extension can hand it to `reportPushToTalkMessage(userInfo:)` unchanged.
///
/// Custom keys sit at the root, beside `aps`:
/// - a wake: `channel`, `activeSpeaker`, `burst`, `sentAt`; during an emergency also `kind: "emergency"` and
///   `emergency`; for a broadcast's burst `kind: "broadcast"` and `broadcast`;
/// - a leave: `channel`, `leaveChannel: true`, `reason`, `sentAt`;
/// - an announcement: `channel`, `announcement`, `sentAt`, and an alert in `aps`.
public struct PushPayload: Codable, Sendable, Equatable {
    public var aps: APS
    /// The channel UUID (lowercase), as the PushToTalk framework knows it.
    public var channel: String
    /// Display name of the member who started talking (wakes).
    public var activeSpeaker: String?
    /// Identifies the talk burst a wake belongs to: one wake per member per burst.
    public var burst: String?
    /// When the server made this push, in milliseconds since 1970: a client throws away a wake that arrives
    /// after the burst could have ended.
    public var sentAt: Int64
    /// `true` tells the app to leave the channel (kicked, channel deleted, user removed).
    public var leaveChannel: Bool?
    /// Why the membership ended, with `leaveChannel`: `kicked`, `channel-deleted` or `user-removed`.
    public var reason: LeaveReason?
    /// The text of an operator announcement.
    public var announcement: String?
    /// What kind of call a wake is for, so that an app can ring differently: absent for an ordinary burst.
    public var kind: CallKind?
    /// With `kind: emergency`: the channel's emergency, as `emergency-declared` shows it.
    public var emergency: EmergencyState?
    /// With `kind: private`: the call that rings (who calls; `call-accept` names its id).
    public var call: CallInfo?
    /// With `kind: broadcast`: the broadcast whose burst this is.
    public var broadcast: BroadcastInfo?

    public init(
        aps: APS = APS(), channel: String, activeSpeaker: String? = nil, burst: String? = nil, sentAt: Int64,
        leaveChannel: Bool? = nil, reason: LeaveReason? = nil, announcement: String? = nil, kind: CallKind? = nil,
        emergency: EmergencyState? = nil, call: CallInfo? = nil, broadcast: BroadcastInfo? = nil
    ) {
        self.aps = aps
        self.channel = channel
        self.activeSpeaker = activeSpeaker
        self.burst = burst
        self.sentAt = sentAt
        self.leaveChannel = leaveChannel
        self.reason = reason
        self.announcement = announcement
        self.kind = kind
        self.emergency = emergency
        self.call = call
        self.broadcast = broadcast
    }
}

/// `push` (server → client): a notification over the Local Push connection, with the fields APNs carries
/// in headers.
public struct PushFrame: Codable, Sendable, Equatable {
    /// Unique per push; the client answers with `push-ack` carrying it.
    public var id: String
    /// `pushtotalk` for wakes and leaves, `alert` for announcements.
    public var pushType: PushType
    /// 10 (immediately) for pushtotalk, 5 for announcements.
    public var priority: Int
    /// 0: now or never (never stored). Otherwise the time, in seconds since 1970, after which it is not delivered.
    public var expiration: Int64
    /// Pushes with the same collapse id replace each other while stored.
    public var collapseId: String?
    public var payload: PushPayload
    public init(
        id: String, pushType: PushType, priority: Int, expiration: Int64, collapseId: String? = nil,
        payload: PushPayload
    ) {
        self.id = id
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.collapseId = collapseId
        self.payload = payload
    }

    /// `pushtotalk`, the push type of wakes and leaves.
    public static let pushToTalk = PushType.pushToTalk
    /// `alert`, the push type of announcements.
    public static let alert = PushType.alert
}

/// `push-ack` (client → server): the client has the push with this id. A stored announcement is deleted
/// once acknowledged; until then it is delivered again on every new connection until it expires.
public struct PushAck: Codable, Sendable, Equatable {
    public var id: String
    public init(id: String) { self.id = id }
}

/// What kind of call a wake is for: `payload.kind` (Docs/PROTOCOL.md 11.2). An ordinary burst's wake has none.
public enum CallKind: WireValue {
    /// A burst on a channel in emergency (or imminent peril): `payload.emergency` says which.
    case emergency
    /// A private call rings: `payload.call` says who calls (Docs/CALLS-DESIGN.md).
    case `private`
    /// A broadcast's burst (Docs/PROTOCOL.md 5.42): `payload.broadcast` says whose and to which channels.
    case broadcast
    /// A value from a newer server.
    case unknown(String)

    public static let known: [CallKind] = [.emergency, .private, .broadcast]

    public var rawValue: String {
        switch self {
        case .emergency: "emergency"
        case .private: "private"
        case .broadcast: "broadcast"
        case .unknown(let value): value
        }
    }
}
