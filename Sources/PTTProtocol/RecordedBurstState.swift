/// Where a recorded burst stands: `state` in `GET /api/channels/NAME/bursts`.
public enum RecordedBurstState: WireValue {
    /// Being written now.
    case recording
    /// Closed when the burst ended.
    case complete
    /// Left open by a crash and closed at the next start.
    case recovered
    /// A value from a newer server.
    case unknown(String)

    public static let known: [RecordedBurstState] = [.recording, .complete, .recovered]

    public var rawValue: String {
        switch self {
        case .recording: "recording"
        case .complete: "complete"
        case .recovered: "recovered"
        case .unknown(let value): value
        }
    }
}
