/// How a replay ended: `replay-ended.outcome`.
public enum ReplayOutcome: WireValue {
    /// Every packet of the burst was sent.
    case ended
    /// Live audio on the channel (which always wins), a changed membership or a taken floor stopped it.
    case cancelled
    /// A value from a newer server.
    case unknown(String)

    public static let known: [ReplayOutcome] = [.ended, .cancelled]

    public var rawValue: String {
        switch self {
        case .ended: "ended"
        case .cancelled: "cancelled"
        case .unknown(let value): value
        }
    }
}
