/// How the notifier reaches a member's device: `wakeRoute` in presence reports and the admin API, and a push's
/// `transport` in the wake counts.
public enum WakeTransport: WireValue {
    /// A live `push-provider` connection (the Local Push extension).
    case localPush
    /// APNs, with the membership's push token.
    case apns
    /// `none`: no way to wake it.
    case unreachable
    /// A value from a newer server.
    case unknown(String)

    public static let known: [WakeTransport] = [.localPush, .apns, .unreachable]

    public var rawValue: String {
        switch self {
        case .localPush: "local-push"
        case .apns: "apns"
        case .unreachable: "none"
        case .unknown(let value): value
        }
    }
}
