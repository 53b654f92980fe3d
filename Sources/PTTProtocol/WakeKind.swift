/// What a push the notifier tried was for: `kind` in the admin API's wake counts and a member's last wake.
public enum WakeKind: WireValue {
    /// A talk burst started: wake the device.
    case wake
    /// The membership ended: tell the device to leave the channel.
    case leave
    /// An operator announcement.
    case announce
    /// A value from a newer server.
    case unknown(String)

    public static let known: [WakeKind] = [.wake, .leave, .announce]

    public var rawValue: String {
        switch self {
        case .wake: "wake"
        case .leave: "leave"
        case .announce: "announce"
        case .unknown(let value): value
        }
    }
}
