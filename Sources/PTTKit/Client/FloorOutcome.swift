import PTTProtocol

/// The answer to ``ChannelHandle/requestFloor()``.
public enum FloorOutcome: Sendable, Equatable {
    /// You may talk now, for at most `talkTime`.
    case granted(talkTime: Duration)
    /// Someone else talks; you wait at `position` (1: next). A ``PTTEvent/floorGranted(channel:talkTime:)`` comes
    /// when your turn does, and ``PTTEvent/floorQueued(channel:position:)`` whenever the position changes.
    case queued(position: Int)
    /// Refused, for `cause`.
    case denied(cause: FloorDenialCause)
}

/// Why a floor request was refused (3GPP TS 24.380's deny causes, as the server names them).
public enum FloorDenialCause: Sendable, Equatable, CustomStringConvertible {
    /// Someone else talks and the channel does not queue.
    case anotherMemberHasPermission
    /// You are the channel's only member: nobody would hear you.
    case onlyOneParticipant
    /// This membership (or the user) only listens.
    case receiveOnly
    /// The queue is full.
    case queueFull
    /// A cause this version of the kit does not know, as the server spelled it.
    case other(String)

    /// The cause the server's `floor-denied` names.
    public init(wire: String) {
        switch wire {
        case "another-member-has-permission": self = .anotherMemberHasPermission
        case "only-one-participant": self = .onlyOneParticipant
        case "receive-only": self = .receiveOnly
        case "queue-full": self = .queueFull
        default: self = .other(wire)
        }
    }

    public var description: String {
        switch self {
        case .anotherMemberHasPermission: "another-member-has-permission"
        case .onlyOneParticipant: "only-one-participant"
        case .receiveOnly: "receive-only"
        case .queueFull: "queue-full"
        case .other(let wire): wire
        }
    }
}

/// Why the floor was taken from you (`floor-revoked`).
public enum FloorRevocationCause: Sendable, Equatable, CustomStringConvertible {
    /// You sent no audio for the server's end-of-media time (T1).
    case endOfMedia
    /// You talked for the longest time the channel allows (T2).
    case talkTimeExceeded
    /// A member with a higher priority took the floor.
    case preempted
    /// An operator took it.
    case revokedByOperator
    /// A cause this version of the kit does not know.
    case other(String)

    /// The cause the server's `floor-revoked` names.
    public init(wire: String) {
        switch wire {
        case "end-of-media": self = .endOfMedia
        case "talk-time-exceeded": self = .talkTimeExceeded
        case "preempted": self = .preempted
        case "revoked-by-operator": self = .revokedByOperator
        default: self = .other(wire)
        }
    }

    public var description: String {
        switch self {
        case .endOfMedia: "end-of-media"
        case .talkTimeExceeded: "talk-time-exceeded"
        case .preempted: "preempted"
        case .revokedByOperator: "revoked-by-operator"
        case .other(let wire): wire
        }
    }
}
