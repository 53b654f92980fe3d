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
