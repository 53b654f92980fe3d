import Foundation
import PTTProtocol
import Testing

@testable import PTTKit

@Suite("PushToTalkWake: one type for APNs and Local Push wakes")
struct PushToTalkWakeTests {
    static let apnsBody = Data(
        #"{"activeSpeaker":"Ann","aps":{},"burst":"9a0b1c2d3e4f5061","channel":"6f1c2a4e-8d3b-4c5a-9e7f-0a1b2c3d4e5f","sentAt":1763773200123}"#
            .utf8)

    @Test("an APNs pushtotalk body and the same payload over Local Push give the same wake")
    func bothPaths() throws {
        let fromAPNs = try PushToTalkWake(apnsPayload: Self.apnsBody)
        let payload = try JSONDecoder().decode(PushPayload.self, from: Self.apnsBody)
        let fromLocalPush = try PushToTalkWake(payload: payload, expiration: 0, pushID: "p-1")
        #expect(fromAPNs.action == .activeRemoteParticipant(name: "Ann"))
        #expect(fromAPNs.channel == "6f1c2a4e-8d3b-4c5a-9e7f-0a1b2c3d4e5f")
        #expect(fromAPNs.channelUUID == UUID(uuidString: "6F1C2A4E-8D3B-4C5A-9E7F-0A1B2C3D4E5F"))
        #expect(fromAPNs.burst == "9a0b1c2d3e4f5061")
        #expect(fromAPNs.sentAt == 1_763_773_200_123)
        #expect(fromLocalPush.action == fromAPNs.action)
        #expect(fromLocalPush.payload == fromAPNs.payload)
        #expect(fromLocalPush.pushID == "p-1")
    }

    @Test(
        "the framework's userInfo dictionary reads the same; userInfo gives the payload back for reportPushToTalkMessage"
    )
    func userInfoRoundTrip() throws {
        let object = try #require(try JSONSerialization.jsonObject(with: Self.apnsBody) as? [String: Any])
        let wake = try PushToTalkWake(userInfo: object)
        #expect(wake.action == .activeRemoteParticipant(name: "Ann"))
        let back = wake.userInfo
        #expect(back["activeSpeaker"] as? String == "Ann")
        #expect(back["aps"] is [String: Any])
        #expect(try PushToTalkWake(userInfo: back) == wake)
    }

    @Test("a leave says leave with its reason; an announcement or garbage is not a wake")
    func leaveAndOthers() throws {
        let leave = try PushToTalkWake(
            payload: PushPayload(channel: "c", sentAt: 5, leaveChannel: true, reason: .kicked))
        #expect(leave.action == .leaveChannel(reason: .kicked))
        #expect(!leave.isStale(now: Date(timeIntervalSince1970: 1e9)), "a leave is never stale")
        #expect(throws: PushToTalkWakeError.notAWake) {
            try PushToTalkWake(payload: PushPayload(channel: "c", sentAt: 5, announcement: "Muster"))
        }
        #expect(throws: PushToTalkWakeError.self) { try PushToTalkWake(apnsPayload: Data("not json".utf8)) }
        #expect(throws: PushToTalkWakeError.self) { try PushToTalkWake(userInfo: ["aps": [:]]) }
    }

    @Test("a speaker wake older than the allowed age is stale")
    func staleness() throws {
        let wake = try PushToTalkWake(apnsPayload: Self.apnsBody)
        let sent = Date(timeIntervalSince1970: 1_763_773_200.123)
        #expect(!wake.isStale(now: sent.addingTimeInterval(29), maximumAge: .seconds(30)))
        #expect(wake.isStale(now: sent.addingTimeInterval(31), maximumAge: .seconds(30)))
    }
}
