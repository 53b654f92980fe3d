/// Whether someone holds a channel's floor: `FloorState.state`, and `floor` in the admin API's channel rows.
public enum FloorStatus: WireValue {
    /// Nobody holds the floor.
    case idle
    /// A member holds the floor.
    case taken
    /// A value from a newer server.
    case unknown(String)

    public static let known: [FloorStatus] = [.idle, .taken]

    public var rawValue: String {
        switch self {
        case .idle: "idle"
        case .taken: "taken"
        case .unknown(let value): value
        }
    }
}
