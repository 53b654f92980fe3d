/// Why a `floor-request` was refused: `floor-denied.cause` (Docs/PROTOCOL.md 7.4).
public enum FloorDenialCause: WireValue {
    /// The member is receive-only.
    case receiveOnly
    /// The member is alone in the channel: nobody would hear it.
    case onlyOneParticipant
    /// The floor is taken and the queue is full.
    case queueFull
    /// The floor is taken and the channel queues nobody (`queueCapacityPerPriority` 0).
    case anotherMemberHasPermission
    /// A broadcast holds the channel (Docs/PROTOCOL.md 5.36): nobody else talks there until it ends.
    case broadcast
    /// A value from a newer server.
    case unknown(String)

    public static let known: [FloorDenialCause] = [
        .receiveOnly, .onlyOneParticipant, .queueFull, .anotherMemberHasPermission, .broadcast,
    ]

    public var rawValue: String {
        switch self {
        case .receiveOnly: "receive-only"
        case .onlyOneParticipant: "only-one-participant"
        case .queueFull: "queue-full"
        case .anotherMemberHasPermission: "another-member-has-permission"
        case .broadcast: "broadcast"
        case .unknown(let value): value
        }
    }
}
