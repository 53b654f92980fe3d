/// How a push the notifier tried ended: `outcome` in the admin API's wake counts and a member's last wake.
public enum WakeOutcome: WireValue {
    /// Handed to the transport.
    case sent
    /// The device acknowledged it (`push-ack`).
    case acknowledged
    /// Its deadline passed before it could be handed over.
    case expired
    /// The transport refused it (an APNs reason such as `Unregistered`).
    case rejected
    /// It could not be handed over (a network or server error).
    case failed
    /// A value from a newer server.
    case unknown(String)

    public static let known: [WakeOutcome] = [.sent, .acknowledged, .expired, .rejected, .failed]

    public var rawValue: String {
        switch self {
        case .sent: "sent"
        case .acknowledged: "acknowledged"
        case .expired: "expired"
        case .rejected: "rejected"
        case .failed: "failed"
        case .unknown(let value): value
        }
    }
}
