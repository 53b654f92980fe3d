import Foundation

/// Every frame of the control protocol. On the wire each is a JSON object whose `type` names the case
/// and whose other keys are the payload's fields (Docs/PROTOCOL.md).
public enum ControlMessage: Sendable, Equatable {
    case hello(Hello)
    case welcome(Welcome)
    case heartbeat(Heartbeat)
    case heartbeatAck(HeartbeatAck)
    case error(ErrorFrame)
    case join(Join)
    case joined(Joined)
    case leave(Leave)
    case left(Left)
    case pushToken(PushToken)
    case pushTokenRegistered(PushTokenRegistered)
    case memberJoined(MemberEvent)
    case memberLeft(MemberEvent)
    case floorRequest(FloorCommand)
    case floorRelease(FloorCommand)
    case floorGranted(FloorGranted)
    case floorDenied(FloorDenied)
    case floorQueued(FloorQueued)
    case floorQueueCancelled(FloorChannelEvent)
    case floorReleased(FloorChannelEvent)
    case floorTaken(FloorTaken)
    case floorIdle(FloorChannelEvent)
    case floorRevoked(FloorRevoked)
    case floorRevokePending(FloorRevokePending)
    case push(PushFrame)
    case pushAck(PushAck)
    case replay(Replay)
    case replaying(Replaying)
    case replayEnded(ReplayEnded)
    case presence(PresenceRequest)
    case presenceReport(PresenceReport)
    case emergency(EmergencyRequest)
    case emergencyDeclared(EmergencyDeclared)
    case emergencyClear(EmergencyClear)
    case emergencyCleared(EmergencyCleared)
    case call(CallRequest)
    case callRinging(CallRinging)
    case callIncoming(CallRinging)
    case callAccept(CallCommand)
    case callDecline(CallCommand)
    case callHangup(CallCommand)
    case callConnected(CallConnected)
    case callEnded(CallEnded)
    case broadcast(BroadcastRequest)
    case broadcastStarted(BroadcastStarted)
    case broadcastEnded(BroadcastEnded)
    case scan(ScanRequest)
    case scanSet(ScanSet)
    case scanSwitched(ScanSwitched)
}

extension ControlMessage: Codable {
    private enum TypeKey: String, CodingKey { case type }

    public init(from decoder: Decoder) throws {
        let type = try decoder.container(keyedBy: TypeKey.self).decode(String.self, forKey: .type)
        guard let kind = Kind(rawValue: type) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: [TypeKey.type], debugDescription: "unknown message type '\(type)'"))
        }
        switch kind {
        case .hello: self = .hello(try Hello(from: decoder))
        case .welcome: self = .welcome(try Welcome(from: decoder))
        case .heartbeat: self = .heartbeat(try Heartbeat(from: decoder))
        case .heartbeatAck: self = .heartbeatAck(try HeartbeatAck(from: decoder))
        case .error: self = .error(try ErrorFrame(from: decoder))
        case .join: self = .join(try Join(from: decoder))
        case .joined: self = .joined(try Joined(from: decoder))
        case .leave: self = .leave(try Leave(from: decoder))
        case .left: self = .left(try Left(from: decoder))
        case .pushToken: self = .pushToken(try PushToken(from: decoder))
        case .pushTokenRegistered: self = .pushTokenRegistered(try PushTokenRegistered(from: decoder))
        case .memberJoined: self = .memberJoined(try MemberEvent(from: decoder))
        case .memberLeft: self = .memberLeft(try MemberEvent(from: decoder))
        case .floorRequest: self = .floorRequest(try FloorCommand(from: decoder))
        case .floorRelease: self = .floorRelease(try FloorCommand(from: decoder))
        case .floorGranted: self = .floorGranted(try FloorGranted(from: decoder))
        case .floorDenied: self = .floorDenied(try FloorDenied(from: decoder))
        case .floorQueued: self = .floorQueued(try FloorQueued(from: decoder))
        case .floorQueueCancelled: self = .floorQueueCancelled(try FloorChannelEvent(from: decoder))
        case .floorReleased: self = .floorReleased(try FloorChannelEvent(from: decoder))
        case .floorTaken: self = .floorTaken(try FloorTaken(from: decoder))
        case .floorIdle: self = .floorIdle(try FloorChannelEvent(from: decoder))
        case .floorRevoked: self = .floorRevoked(try FloorRevoked(from: decoder))
        case .floorRevokePending: self = .floorRevokePending(try FloorRevokePending(from: decoder))
        case .push: self = .push(try PushFrame(from: decoder))
        case .pushAck: self = .pushAck(try PushAck(from: decoder))
        case .replay: self = .replay(try Replay(from: decoder))
        case .replaying: self = .replaying(try Replaying(from: decoder))
        case .replayEnded: self = .replayEnded(try ReplayEnded(from: decoder))
        case .presence: self = .presence(try PresenceRequest(from: decoder))
        case .presenceReport: self = .presenceReport(try PresenceReport(from: decoder))
        case .emergency: self = .emergency(try EmergencyRequest(from: decoder))
        case .emergencyDeclared: self = .emergencyDeclared(try EmergencyDeclared(from: decoder))
        case .emergencyClear: self = .emergencyClear(try EmergencyClear(from: decoder))
        case .emergencyCleared: self = .emergencyCleared(try EmergencyCleared(from: decoder))
        case .call: self = .call(try CallRequest(from: decoder))
        case .callRinging: self = .callRinging(try CallRinging(from: decoder))
        case .callIncoming: self = .callIncoming(try CallRinging(from: decoder))
        case .callAccept: self = .callAccept(try CallCommand(from: decoder))
        case .callDecline: self = .callDecline(try CallCommand(from: decoder))
        case .callHangup: self = .callHangup(try CallCommand(from: decoder))
        case .callConnected: self = .callConnected(try CallConnected(from: decoder))
        case .callEnded: self = .callEnded(try CallEnded(from: decoder))
        case .broadcast: self = .broadcast(try BroadcastRequest(from: decoder))
        case .broadcastStarted: self = .broadcastStarted(try BroadcastStarted(from: decoder))
        case .broadcastEnded: self = .broadcastEnded(try BroadcastEnded(from: decoder))
        case .scan: self = .scan(try ScanRequest(from: decoder))
        case .scanSet: self = .scanSet(try ScanSet(from: decoder))
        case .scanSwitched: self = .scanSwitched(try ScanSwitched(from: decoder))
        }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: TypeKey.self)
        try container.encode(kind.rawValue, forKey: .type)
        switch self {
        case .hello(let m): try m.encode(to: encoder)
        case .welcome(let m): try m.encode(to: encoder)
        case .heartbeat(let m): try m.encode(to: encoder)
        case .heartbeatAck(let m): try m.encode(to: encoder)
        case .error(let m): try m.encode(to: encoder)
        case .join(let m): try m.encode(to: encoder)
        case .joined(let m): try m.encode(to: encoder)
        case .leave(let m): try m.encode(to: encoder)
        case .left(let m): try m.encode(to: encoder)
        case .pushToken(let m): try m.encode(to: encoder)
        case .pushTokenRegistered(let m): try m.encode(to: encoder)
        case .memberJoined(let m): try m.encode(to: encoder)
        case .memberLeft(let m): try m.encode(to: encoder)
        case .floorRequest(let m): try m.encode(to: encoder)
        case .floorRelease(let m): try m.encode(to: encoder)
        case .floorGranted(let m): try m.encode(to: encoder)
        case .floorDenied(let m): try m.encode(to: encoder)
        case .floorQueued(let m): try m.encode(to: encoder)
        case .floorQueueCancelled(let m): try m.encode(to: encoder)
        case .floorReleased(let m): try m.encode(to: encoder)
        case .floorTaken(let m): try m.encode(to: encoder)
        case .floorIdle(let m): try m.encode(to: encoder)
        case .floorRevoked(let m): try m.encode(to: encoder)
        case .floorRevokePending(let m): try m.encode(to: encoder)
        case .push(let m): try m.encode(to: encoder)
        case .pushAck(let m): try m.encode(to: encoder)
        case .replay(let m): try m.encode(to: encoder)
        case .replaying(let m): try m.encode(to: encoder)
        case .replayEnded(let m): try m.encode(to: encoder)
        case .presence(let m): try m.encode(to: encoder)
        case .presenceReport(let m): try m.encode(to: encoder)
        case .emergency(let m): try m.encode(to: encoder)
        case .emergencyDeclared(let m): try m.encode(to: encoder)
        case .emergencyClear(let m): try m.encode(to: encoder)
        case .emergencyCleared(let m): try m.encode(to: encoder)
        case .call(let m): try m.encode(to: encoder)
        case .callRinging(let m), .callIncoming(let m): try m.encode(to: encoder)
        case .callAccept(let m), .callDecline(let m), .callHangup(let m): try m.encode(to: encoder)
        case .callConnected(let m): try m.encode(to: encoder)
        case .callEnded(let m): try m.encode(to: encoder)
        case .broadcast(let m): try m.encode(to: encoder)
        case .broadcastStarted(let m): try m.encode(to: encoder)
        case .broadcastEnded(let m): try m.encode(to: encoder)
        case .scan(let m): try m.encode(to: encoder)
        case .scanSet(let m): try m.encode(to: encoder)
        case .scanSwitched(let m): try m.encode(to: encoder)
        }
    }
}

/// Turns control messages into frame bodies and back.
public enum ControlMessageCoding {
    /// Encodes a message as a JSON body (without the length prefix), keys sorted for stable output.
    public static func encode(_ message: ControlMessage) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(message)
    }

    /// Decodes a JSON body. The error names what was wrong, for the `malformed-frame` error text.
    ///
    /// A body that is JSON but repeats a key is refused as `duplicate key '…'` whatever else is wrong with its
    /// fields: which of the repeated values a field would have is the first question, so it is checked before any
    /// field's error is reported. A body that is not JSON at all is reported as such.
    public static func decode(_ body: Data) throws(ControlFrameError) -> ControlMessage {
        let message: ControlMessage
        do {
            message = try JSONDecoder().decode(ControlMessage.self, from: body)
        } catch let error as DecodingError {
            if !Self.isSyntaxError(error), let key = JSONDuplicateKeys.first(in: body) {
                throw .malformed("duplicate key '\(key)'")
            }
            throw .malformed(Self.describe(error))
        } catch {
            throw .malformed("\(error)")
        }
        if let key = JSONDuplicateKeys.first(in: body) { throw .malformed("duplicate key '\(key)'") }
        return message
    }

    /// Whether the decoder failed because the body is not JSON (rather than on a field of valid JSON).
    static func isSyntaxError(_ error: DecodingError) -> Bool {
        guard case .dataCorrupted(let context) = error else { return false }
        return context.codingPath.isEmpty
    }

    static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }
            return keys.isEmpty ? "body" : keys.joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context):
            let parent = path(context)
            return "missing field '\(key.stringValue)'" + (parent == "body" ? "" : " in \(parent)")
        case .typeMismatch(let type, let context):
            return "field '\(path(context))' is not of type \(type)"
        case .valueNotFound(let type, let context):
            return "field '\(path(context))' is null, expected \(type)"
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty {
                return context.underlyingError == nil ? context.debugDescription : "body is not valid JSON"
            }
            return "\(path(context)): \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }
}

/// Why a frame could not be read.
public enum ControlFrameError: Error, Equatable, CustomStringConvertible {
    case tooLarge(length: Int)
    case malformed(String)

    public var code: ErrorCode {
        switch self {
        case .tooLarge: .frameTooLarge
        case .malformed: .malformedFrame
        }
    }

    public var description: String {
        switch self {
        case .tooLarge(let length):
            "frame of \(length) bytes exceeds the limit of \(ControlFrameLimit.maxBodyBytes) bytes"
        case .malformed(let why): "malformed frame: \(why)"
        }
    }
}
