/// Why a private call ended: `call-ended.reason` (Docs/CALLS-DESIGN.md, "Private calls").
public enum CallEndReason: WireValue {
    /// The callee declined it.
    case declined
    /// Nobody answered within the ring timeout.
    case noAnswer
    /// One side hung up (`by` says which).
    case hungUp
    /// Nobody talked for the call's idle timeout.
    case silence
    /// Another device of the callee accepted it (to the callee's other devices).
    case answeredElsewhere
    /// No device of the callee could be told or woken.
    case unavailable
    /// An operator ended it.
    case endedByOperator
    /// A value from a newer server.
    case unknown(String)

    public static let known: [CallEndReason] = [
        .declined, .noAnswer, .hungUp, .silence, .answeredElsewhere, .unavailable, .endedByOperator,
    ]

    public var rawValue: String {
        switch self {
        case .declined: "declined"
        case .noAnswer: "no-answer"
        case .hungUp: "hung-up"
        case .silence: "silence"
        case .answeredElsewhere: "answered-elsewhere"
        case .unavailable: "unavailable"
        case .endedByOperator: "operator"
        case .unknown(let value): value
        }
    }
}

/// A private call as both sides see it.
public struct CallInfo: Codable, Sendable, Equatable {
    /// The call's id (a UUID string): what `call-accept`, `call-decline` and `call-hangup` name.
    public var id: String
    /// The calling member (its display name and user).
    public var caller: MemberInfo
    /// The user called.
    public var callee: String
    /// When it was placed, in milliseconds since 1970.
    public var since: Int64
    public init(id: String, caller: MemberInfo, callee: String, since: Int64) {
        self.id = id
        self.caller = caller
        self.callee = callee
        self.since = since
    }
}

/// `call`: ring a user.
public struct CallRequest: Codable, Sendable, Equatable {
    public var id: Int?
    /// The user to call.
    public var user: String
    /// A channel of the caller's device: the membership the call is placed from (its display name is the
    /// caller's); absent: the device's most recent membership.
    public var from: String?
    public init(id: Int? = nil, user: String, from: String? = nil) {
        self.id = id
        self.user = user
        self.from = from
    }
}

/// `call-accept`, `call-decline`, `call-hangup`: one side acts on a call.
public struct CallCommand: Codable, Sendable, Equatable {
    public var id: Int?
    /// The call's id.
    public var call: String
    public init(id: Int? = nil, call: String) {
        self.id = id
        self.call = call
    }
}

/// `call-ringing` (to the caller) and `call-incoming` (to the callee's connected apps).
public struct CallRinging: Codable, Sendable, Equatable {
    public var re: Int?
    public var call: CallInfo
    /// `call-incoming` only: the callee is in an ordinary burst; the app shows a waiting call.
    public var waiting: Bool?
    public init(re: Int? = nil, call: CallInfo, waiting: Bool? = nil) {
        self.re = re
        self.call = call
        self.waiting = waiting
    }
}

/// `call-connected`: the call is answered; each side gets its own membership of the call's channel.
public struct CallConnected: Codable, Sendable, Equatable {
    public var re: Int?
    public var call: CallInfo
    /// The call's channel, as floor messages name it.
    public var channel: ChannelInfo
    /// This side's membership of it.
    public var member: MemberInfo
    /// This side's media parameters (its own key and SSRCs).
    public var media: MediaParameters
    public var floor: FloorState
    public init(
        re: Int? = nil, call: CallInfo, channel: ChannelInfo, member: MemberInfo, media: MediaParameters,
        floor: FloorState
    ) {
        self.re = re
        self.call = call
        self.channel = channel
        self.member = member
        self.media = media
        self.floor = floor
    }
}

/// `call-ended`: the call is over, or never connected.
public struct CallEnded: Codable, Sendable, Equatable {
    public var re: Int?
    public var call: CallInfo
    public var reason: CallEndReason
    /// With `hung-up`: the user who hung up.
    public var by: String?
    public init(re: Int? = nil, call: CallInfo, reason: CallEndReason, by: String? = nil) {
        self.re = re
        self.call = call
        self.reason = reason
        self.by = by
    }
}
