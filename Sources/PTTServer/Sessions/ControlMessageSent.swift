import PTTProtocol

/// An outbound user event: the ``ControlSession`` is writing this message now, right before its frame's bytes.
///
/// Fired on the connection's event loop for the messages that change which memberships a connection holds
/// (``announces(_:)``), so a handler between the session and the socket learns of them as typed values, in the
/// order of the frames, without reading the bytes again. The ``WebSocketControlBridge`` tells its media gateway;
/// on a control connection nothing handles it (the channel's head drops it).
struct ControlMessageSent: Sendable {
    let message: ControlMessage

    /// Whether a message of this kind is announced: `joined`, `welcome` (its memberships) and `left`, and a private
    /// call's `call-connected` (its membership) and `call-ended` (its end).
    static func announces(_ kind: ControlMessage.Kind) -> Bool {
        switch kind {
        case .joined, .welcome, .left, .callConnected, .callEnded: true
        case .hello, .heartbeat, .heartbeatAck, .error, .join, .leave, .pushToken, .pushTokenRegistered, .memberJoined,
            .memberLeft, .floorRequest, .floorRelease, .floorGranted, .floorDenied, .floorQueued, .floorQueueCancelled,
            .floorReleased, .floorTaken, .floorIdle, .floorRevoked, .floorRevokePending, .push, .pushAck, .replay,
            .replaying, .replayEnded, .presence, .presenceReport, .emergency, .emergencyDeclared, .emergencyClear,
            .emergencyCleared, .call, .callRinging, .callIncoming, .callAccept, .callDecline, .callHangup, .broadcast,
            .broadcastStarted, .broadcastEnded, .scan, .scanSet, .scanSwitched:
            false
        }
    }
}
