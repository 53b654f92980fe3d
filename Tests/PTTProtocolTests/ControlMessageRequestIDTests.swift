import Foundation
import PTTProtocol
import TestSupport
import Testing

private typealias S = ProtocolSamples

@Suite("Control messages: request ids")
struct ControlMessageRequestIDTests {
    /// The `re` each sample answers, from the sample table above.
    static let answers: [String: Int] = [
        "error": 9, "joined": 4, "left": 2, "push-token-registered": 3, "floor-granted": 5, "floor-denied": 6,
        "floor-queued": 7, "floor-queue-cancelled": 8, "floor-released": 10, "replaying": 11, "presence-report": 12,
        "emergency-declared": 13, "emergency-cleared": 14, "call-ringing": 15, "call-connected": 16, "call-ended": 18,
        "broadcast-started": 19, "scan-set": 20,
    ]

    @Test(arguments: S.all)
    func reIsTheRequestIDOfAnswersOnly(sample: ProtocolSample) {
        #expect(sample.message.re == Self.answers[sample.wireType])
    }

    @Test func reOfFloorIdleIsItsRe() {
        #expect(ControlMessage.floorIdle(FloorChannelEvent(re: 12, channel: S.channel)).re == 12)
        #expect(ControlMessage.floorIdle(FloorChannelEvent(channel: S.channel)).re == nil)
    }

    @Test func withIDSetsTheIDOfRequests() throws {
        #expect(ControlMessage.join(Join(channel: "c")).withID(42) == .join(Join(id: 42, channel: "c")))
        #expect(ControlMessage.leave(Leave(id: 1, channel: "c")).withID(42) == .leave(Leave(id: 42, channel: "c")))
        #expect(
            ControlMessage.pushToken(PushToken(channel: "c", token: "ab")).withID(42)
                == .pushToken(PushToken(id: 42, channel: "c", token: "ab")))
        #expect(
            ControlMessage.floorRequest(FloorCommand(channel: "c")).withID(42)
                == .floorRequest(FloorCommand(id: 42, channel: "c")))
        #expect(
            ControlMessage.floorRelease(FloorCommand(channel: "c")).withID(42)
                == .floorRelease(FloorCommand(id: 42, channel: "c")))
        #expect(try S.object(ControlMessage.floorRelease(FloorCommand(channel: "c")).withID(42))["id"] as? Int == 42)
    }

    static let requestTypes: Set<String> = [
        "join", "leave", "push-token", "floor-request", "floor-release", "replay", "presence", "emergency",
        "emergency-clear", "call", "call-accept", "call-decline", "call-hangup", "broadcast", "scan",
    ]

    @Test(arguments: S.all)
    func withIDLeavesOtherMessagesAlone(sample: ProtocolSample) {
        let changed = sample.message.withID(1_000)
        #expect((changed != sample.message) == Self.requestTypes.contains(sample.wireType))
        #expect(changed.type == sample.message.type)
        #expect(changed.re == sample.message.re)
    }
}
