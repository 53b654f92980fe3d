import Foundation
import PTTProtocol
import Testing

/// One message of each case, with the `type` string the wire table in ControlMessage.swift gives it.
struct ProtocolSample: Sendable, CustomTestStringConvertible {
    var wireType: String
    var message: ControlMessage
    var testDescription: String { wireType }
}

enum ProtocolSamples {
    static let channelID = "6f1c2a4e-8d3b-4c5a-9e7f-0a1b2c3d4e5f"
    static let channel = ChannelInfo(id: channelID, name: "general", imageURL: "https://example.com/ch/general.png")
    static let plainChannel = ChannelInfo(id: channelID, name: "general")
    static let ann = MemberInfo(id: "0123456789ab", name: "Ann", user: "ann", priority: 2, receiveOnly: false)
    static let bob = MemberInfo(id: "ba9876543210", name: "Bob", user: "bob", priority: -1, receiveOnly: true)
    static let joined = Joined(
        re: 4, channel: channel, member: ann,
        media: MediaParameters(
            ssrc: 0xDEAD_BEEF, listenSSRC: 0x84F7_E4B5, port: 50_000, security: .srtp, suite: "AES_CM_128_HMAC_SHA1_80",
            key: "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwd", payloadType: 111),
        floor: FloorState(state: .taken, holder: bob, talkTimeLeftMs: 12_500, queue: ["0123456789ab"]),
        members: [ann, bob])

    static let all: [ProtocolSample] = [
        .init(
            wireType: "hello",
            message: .hello(
                Hello(user: "ann", secret: "s3cret", device: "dev-1", role: .pushProvider, client: "ptt/1.0"))),
        .init(
            wireType: "welcome",
            message: .welcome(
                Welcome(
                    version: 1, server: "pttd 0.1", session: "sess-1", heartbeatIntervalMs: 15_000,
                    memberships: [joined]))),
        .init(wireType: "heartbeat", message: .heartbeat(Heartbeat(seq: UInt64.max))),
        .init(wireType: "heartbeat-ack", message: .heartbeatAck(HeartbeatAck(seq: 41))),
        .init(
            wireType: "error",
            message: .error(ErrorFrame(re: 9, code: .notAMember, message: "not a member of channel 'x'"))),
        .init(
            wireType: "join",
            message: .join(Join(id: 1, channel: "general", displayName: "Ann", receiveOnly: true, pushToken: "a1b2"))),
        .init(wireType: "joined", message: .joined(joined)),
        .init(wireType: "leave", message: .leave(Leave(id: 2, channel: channelID))),
        .init(wireType: "left", message: .left(Left(re: 2, channel: plainChannel, reason: .kicked))),
        .init(wireType: "push-token", message: .pushToken(PushToken(id: 3, channel: "general", token: "00ff"))),
        .init(
            wireType: "push-token-registered",
            message: .pushTokenRegistered(PushTokenRegistered(re: 3, channel: channel))),
        .init(wireType: "member-joined", message: .memberJoined(MemberEvent(channel: channel, member: bob))),
        .init(wireType: "member-left", message: .memberLeft(MemberEvent(channel: channel, member: ann))),
        .init(wireType: "floor-request", message: .floorRequest(FloorCommand(id: 5, channel: "general"))),
        .init(wireType: "floor-release", message: .floorRelease(FloorCommand(channel: "general"))),
        .init(
            wireType: "floor-granted", message: .floorGranted(FloorGranted(re: 5, channel: channel, talkTimeMs: 30_000))
        ),
        .init(
            wireType: "floor-denied", message: .floorDenied(FloorDenied(re: 6, channel: channel, cause: .queueFull))),
        .init(wireType: "floor-queued", message: .floorQueued(FloorQueued(re: 7, channel: channel, position: 2))),
        .init(
            wireType: "floor-queue-cancelled", message: .floorQueueCancelled(FloorChannelEvent(re: 8, channel: channel))
        ),
        .init(wireType: "floor-released", message: .floorReleased(FloorChannelEvent(re: 10, channel: channel))),
        .init(wireType: "floor-taken", message: .floorTaken(FloorTaken(channel: channel, member: ann))),
        .init(wireType: "floor-idle", message: .floorIdle(FloorChannelEvent(channel: plainChannel))),
        .init(wireType: "floor-revoked", message: .floorRevoked(FloorRevoked(channel: channel, cause: .preempted))),
        .init(
            wireType: "floor-revoke-pending",
            message: .floorRevokePending(FloorRevokePending(channel: channel, by: bob, graceMs: 1_000))),
        .init(
            wireType: "push",
            message: .push(
                PushFrame(
                    id: "3f1e9c1a-7a7b-4b7e-9d55-0c8a8b0e1f20", pushType: .pushToTalk, priority: 10, expiration: 0,
                    payload: PushPayload(
                        channel: channelID, activeSpeaker: "Ann", burst: "9a0b1c2d3e4f5061", sentAt: 1_763_773_200_123))
            )),
        .init(wireType: "push-ack", message: .pushAck(PushAck(id: "3f1e9c1a-7a7b-4b7e-9d55-0c8a8b0e1f20"))),
        .init(wireType: "replay", message: .replay(Replay(id: 11, channel: "general", burst: 42))),
        .init(
            wireType: "replaying",
            message: .replaying(
                Replaying(
                    re: 11, channel: channel, burst: 42, speaker: "Ann", startedAt: 1_763_773_200_123,
                    durationMs: 6_160, packets: 308))),
        .init(
            wireType: "replay-ended",
            message: .replayEnded(ReplayEnded(channel: plainChannel, burst: 42, outcome: .cancelled))),
        .init(wireType: "presence", message: .presence(PresenceRequest(id: 12, channel: "general"))),
        .init(
            wireType: "presence-report",
            message: .presenceReport(
                PresenceReport(
                    re: 12, channel: plainChannel,
                    members: [
                        MemberPresence(
                            id: "0123456789ab", name: "Ann", user: "ann", receiveOnly: false, connected: true,
                            audioReachable: true, wakeRoute: .localPush)
                    ], memberCount: 1))),
        .init(
            wireType: "emergency",
            message: .emergency(EmergencyRequest(id: 13, channel: "general", level: .imminentPeril))),
        .init(
            wireType: "emergency-declared",
            message: .emergencyDeclared(
                EmergencyDeclared(
                    re: 13, channel: plainChannel,
                    emergency: EmergencyState(level: .emergency, member: ann, since: 1_763_773_200_123)))),
        .init(wireType: "emergency-clear", message: .emergencyClear(EmergencyClear(id: 14, channel: "general"))),
        .init(
            wireType: "emergency-cleared",
            message: .emergencyCleared(EmergencyCleared(re: 14, channel: plainChannel, by: .declarer, name: "Ann"))),
        .init(wireType: "call", message: .call(CallRequest(id: 15, user: "bob", from: "general"))),
        .init(wireType: "call-ringing", message: .callRinging(CallRinging(re: 15, call: call))),
        .init(wireType: "call-incoming", message: .callIncoming(CallRinging(call: call, waiting: true))),
        .init(wireType: "call-accept", message: .callAccept(CallCommand(id: 16, call: call.id))),
        .init(wireType: "call-decline", message: .callDecline(CallCommand(id: 17, call: call.id))),
        .init(wireType: "call-hangup", message: .callHangup(CallCommand(id: 18, call: call.id))),
        .init(
            wireType: "call-connected",
            message: .callConnected(
                CallConnected(
                    re: 16, call: call, channel: ChannelInfo(id: call.id, name: call.id), member: bob,
                    media: joined.media, floor: FloorState(state: .idle, queue: [])))),
        .init(
            wireType: "call-ended",
            message: .callEnded(CallEnded(re: 18, call: call, reason: .hungUp, by: "bob"))),
        .init(wireType: "broadcast", message: .broadcast(BroadcastRequest(id: 19, channel: "general", to: ["deck"]))),
        .init(
            wireType: "broadcast-started",
            message: .broadcastStarted(BroadcastStarted(re: 19, channel: plainChannel, broadcast: broadcast))),
        .init(
            wireType: "broadcast-ended",
            message: .broadcastEnded(BroadcastEnded(channel: plainChannel, broadcast: broadcast, reason: .released))),
        .init(wireType: "scan", message: .scan(ScanRequest(id: 20, channels: ["general", "deck"], resume: .catchUp))),
        .init(
            wireType: "scan-set",
            message: .scanSet(ScanSet(re: 20, channels: [plainChannel], resume: .catchUp))),
        .init(wireType: "scan-switched", message: .scanSwitched(ScanSwitched(hearing: plainChannel))),
    ]

    static let broadcast = BroadcastInfo(
        id: "5d0c9a7e-1b2f-4c3d-8e9f-0a1b2c3d4e5f", speaker: ann, channels: ["general", "deck"],
        since: 1_763_773_200_789)

    static let call = CallInfo(
        id: "0b6f8c2e-3f4a-4d1e-8a9b-1c2d3e4f5a6b", caller: ann, callee: "bob", since: 1_763_773_200_456)

    /// The case of a message, by an exhaustive switch: adding a case to ControlMessage breaks this until a
    /// sample for it is added above.
    static func caseIndex(_ message: ControlMessage) -> Int {
        switch message {
        case .hello: 0
        case .welcome: 1
        case .heartbeat: 2
        case .heartbeatAck: 3
        case .error: 4
        case .join: 5
        case .joined: 6
        case .leave: 7
        case .left: 8
        case .pushToken: 9
        case .pushTokenRegistered: 10
        case .memberJoined: 11
        case .memberLeft: 12
        case .floorRequest: 13
        case .floorRelease: 14
        case .floorGranted: 15
        case .floorDenied: 16
        case .floorQueued: 17
        case .floorQueueCancelled: 18
        case .floorReleased: 19
        case .floorTaken: 20
        case .floorIdle: 21
        case .floorRevoked: 22
        case .floorRevokePending: 23
        case .push: 24
        case .pushAck: 25
        case .replay: 26
        case .replaying: 27
        case .replayEnded: 28
        case .presence: 29
        case .presenceReport: 30
        case .emergency: 31
        case .emergencyDeclared: 32
        case .emergencyClear: 33
        case .emergencyCleared: 34
        case .call: 35
        case .callRinging: 36
        case .callIncoming: 37
        case .callAccept: 38
        case .callDecline: 39
        case .callHangup: 40
        case .callConnected: 41
        case .callEnded: 42
        case .broadcast: 43
        case .broadcastStarted: 44
        case .broadcastEnded: 45
        case .scan: 46
        case .scanSet: 47
        case .scanSwitched: 48
        }
    }
    static let caseCount = 49

    /// The body bytes of `json` written literally.
    static func body(_ json: String) -> Data { Data(json.utf8) }

    /// The reason `ControlMessageCoding.decode` gives for refusing `json`, nil if it decodes.
    static func malformedReason(_ json: String) -> String? {
        do {
            _ = try ControlMessageCoding.decode(body(json))
            return nil
        } catch {
            guard case .malformed(let why) = error else { return "unexpected \(error)" }
            return why
        }
    }

    /// The top-level JSON object of an encoded message.
    static func object(_ message: ControlMessage) throws -> [String: Any] {
        let data = try ControlMessageCoding.encode(message)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }
}
