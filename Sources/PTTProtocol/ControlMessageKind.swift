extension ControlMessage {
    /// The table of message types: one case per ``ControlMessage`` case, whose raw value is its `type` on the wire.
    ///
    /// It is the one place a type's name is written. ``ControlMessage/kind`` and decoding switch over it
    /// exhaustively, so a new message that is missing here, or not decoded, does not compile.
    public enum Kind: String, CaseIterable, Sendable, Hashable, CustomStringConvertible {
        case hello
        case welcome
        case heartbeat
        case heartbeatAck = "heartbeat-ack"
        case error
        case join
        case joined
        case leave
        case left
        case pushToken = "push-token"
        case pushTokenRegistered = "push-token-registered"
        case memberJoined = "member-joined"
        case memberLeft = "member-left"
        case floorRequest = "floor-request"
        case floorRelease = "floor-release"
        case floorGranted = "floor-granted"
        case floorDenied = "floor-denied"
        case floorQueued = "floor-queued"
        case floorQueueCancelled = "floor-queue-cancelled"
        case floorReleased = "floor-released"
        case floorTaken = "floor-taken"
        case floorIdle = "floor-idle"
        case floorRevoked = "floor-revoked"
        case floorRevokePending = "floor-revoke-pending"
        case push
        case pushAck = "push-ack"
        case replay
        case replaying
        case replayEnded = "replay-ended"
        case presence
        case presenceReport = "presence-report"
        case emergency
        case emergencyDeclared = "emergency-declared"
        case emergencyClear = "emergency-clear"
        case emergencyCleared = "emergency-cleared"
        case call
        case callRinging = "call-ringing"
        case callIncoming = "call-incoming"
        case callAccept = "call-accept"
        case callDecline = "call-decline"
        case callHangup = "call-hangup"
        case callConnected = "call-connected"
        case callEnded = "call-ended"
        case broadcast
        case broadcastStarted = "broadcast-started"
        case broadcastEnded = "broadcast-ended"
        case scan
        case scanSet = "scan-set"
        case scanSwitched = "scan-switched"

        public var description: String { rawValue }
    }

    /// Which message this is: its row of the ``Kind`` table.
    public var kind: Kind {
        switch self {
        case .hello: .hello
        case .welcome: .welcome
        case .heartbeat: .heartbeat
        case .heartbeatAck: .heartbeatAck
        case .error: .error
        case .join: .join
        case .joined: .joined
        case .leave: .leave
        case .left: .left
        case .pushToken: .pushToken
        case .pushTokenRegistered: .pushTokenRegistered
        case .memberJoined: .memberJoined
        case .memberLeft: .memberLeft
        case .floorRequest: .floorRequest
        case .floorRelease: .floorRelease
        case .floorGranted: .floorGranted
        case .floorDenied: .floorDenied
        case .floorQueued: .floorQueued
        case .floorQueueCancelled: .floorQueueCancelled
        case .floorReleased: .floorReleased
        case .floorTaken: .floorTaken
        case .floorIdle: .floorIdle
        case .floorRevoked: .floorRevoked
        case .floorRevokePending: .floorRevokePending
        case .push: .push
        case .pushAck: .pushAck
        case .replay: .replay
        case .replaying: .replaying
        case .replayEnded: .replayEnded
        case .presence: .presence
        case .presenceReport: .presenceReport
        case .emergency: .emergency
        case .emergencyDeclared: .emergencyDeclared
        case .emergencyClear: .emergencyClear
        case .emergencyCleared: .emergencyCleared
        case .call: .call
        case .callRinging: .callRinging
        case .callIncoming: .callIncoming
        case .callAccept: .callAccept
        case .callDecline: .callDecline
        case .callHangup: .callHangup
        case .callConnected: .callConnected
        case .callEnded: .callEnded
        case .broadcast: .broadcast
        case .broadcastStarted: .broadcastStarted
        case .broadcastEnded: .broadcastEnded
        case .scan: .scan
        case .scanSet: .scanSet
        case .scanSwitched: .scanSwitched
        }
    }

    /// The `type` string on the wire: the raw value of ``kind``.
    public var type: String { kind.rawValue }
}
