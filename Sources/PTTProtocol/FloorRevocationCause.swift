/// Why the holder lost the floor: `floor-revoked.cause` (Docs/PROTOCOL.md 7.3).
public enum FloorRevocationCause: WireValue {
    /// The holder sent no audio for the end-of-media time (T1).
    case endOfMedia
    /// The holder talked for the maximum talk time (T2).
    case talkTimeExceeded
    /// A higher-priority member took the floor after the grace time (T3).
    case preempted
    /// An operator revoked it through the admin API.
    case revokedByOperator
    /// A member who declared an emergency (or an imminent peril, over an ordinary holder) took it at once.
    case emergency
    /// A broadcast took it: its sender (in the sender's channel), or the broadcast itself (in the other channels).
    case broadcast
    /// A value from a newer server.
    case unknown(String)

    public static let known: [FloorRevocationCause] = [
        .endOfMedia, .talkTimeExceeded, .preempted, .revokedByOperator, .emergency, .broadcast,
    ]

    public var rawValue: String {
        switch self {
        case .endOfMedia: "end-of-media"
        case .talkTimeExceeded: "talk-time-exceeded"
        case .preempted: "preempted"
        case .revokedByOperator: "revoked-by-operator"
        case .emergency: "emergency"
        case .broadcast: "broadcast"
        case .unknown(let value): value
        }
    }
}
