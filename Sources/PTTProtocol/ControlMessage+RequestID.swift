extension ControlMessage {
    /// The request id this message answers, if it is an answer.
    public var re: Int? {
        switch self {
        case .error(let m): m.re
        case .joined(let m): m.re
        case .left(let m): m.re
        case .pushTokenRegistered(let m): m.re
        case .floorGranted(let m): m.re
        case .floorDenied(let m): m.re
        case .floorQueued(let m): m.re
        case .floorQueueCancelled(let m): m.re
        case .floorReleased(let m): m.re
        case .floorIdle(let m): m.re
        case .replaying(let m): m.re
        case .presenceReport(let m): m.re
        case .emergencyDeclared(let m): m.re
        case .emergencyCleared(let m): m.re
        case .callRinging(let m), .callIncoming(let m): m.re
        case .callConnected(let m): m.re
        case .callEnded(let m): m.re
        case .broadcastStarted(let m): m.re
        case .scanSet(let m): m.re
        case .emergency, .emergencyClear, .call, .callAccept, .callDecline, .callHangup, .broadcast, .broadcastEnded,
            .scan, .scanSwitched:
            nil
        case .hello, .welcome, .heartbeat, .heartbeatAck, .join, .leave, .pushToken, .memberJoined, .memberLeft,
            .floorRequest, .floorRelease, .floorTaken, .floorRevoked, .floorRevokePending, .push, .pushAck, .replay,
            .replayEnded, .presence:
            nil
        }
    }

    /// Returns the message with its request id set, for requests that carry one.
    public func withID(_ id: Int) -> ControlMessage {
        switch self {
        case .join(var m):
            m.id = id
            return .join(m)
        case .leave(var m):
            m.id = id
            return .leave(m)
        case .pushToken(var m):
            m.id = id
            return .pushToken(m)
        case .floorRequest(var m):
            m.id = id
            return .floorRequest(m)
        case .floorRelease(var m):
            m.id = id
            return .floorRelease(m)
        case .replay(var m):
            m.id = id
            return .replay(m)
        case .presence(var m):
            m.id = id
            return .presence(m)
        case .emergency(var m):
            m.id = id
            return .emergency(m)
        case .emergencyClear(var m):
            m.id = id
            return .emergencyClear(m)
        case .call(var m):
            m.id = id
            return .call(m)
        case .callAccept(var m):
            m.id = id
            return .callAccept(m)
        case .callDecline(var m):
            m.id = id
            return .callDecline(m)
        case .callHangup(var m):
            m.id = id
            return .callHangup(m)
        case .broadcast(var m):
            m.id = id
            return .broadcast(m)
        case .scan(var m):
            m.id = id
            return .scan(m)
        case .emergencyDeclared, .emergencyCleared, .callRinging, .callIncoming, .callConnected, .callEnded,
            .broadcastStarted, .broadcastEnded, .scanSet, .scanSwitched:
            return self
        case .hello, .welcome, .heartbeat, .heartbeatAck, .error, .joined, .left, .pushTokenRegistered, .memberJoined,
            .memberLeft, .floorGranted, .floorDenied, .floorQueued, .floorQueueCancelled, .floorReleased, .floorTaken,
            .floorIdle, .floorRevoked, .floorRevokePending, .push, .pushAck, .replaying, .replayEnded, .presenceReport:
            return self
        }
    }
}
