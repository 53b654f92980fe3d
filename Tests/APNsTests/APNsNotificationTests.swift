import APNsTestSupport
import Foundation
import NIOCore
import NIOPosix
import PTTProtocol
import Testing

@testable import APNs

/// What a notification turns into: the pushtotalk fields Apple requires, the path, the headers, the size limit.
@Suite struct APNsNotificationTests {
    struct Body: Encodable {
        var z = 1
        var a = "x/y"
    }

    @Test func aPushToTalkNotificationHasPriorityTenExpirationZeroAndThePushToTalkType() throws {
        let apnsID = UUID()
        let notification = try APNsNotification.pushToTalk(deviceToken: [1, 2, 3], payload: Body(), apnsID: apnsID)
        #expect(notification.pushType == "pushtotalk")
        #expect(notification.priority == 10)
        #expect(notification.expiration == 0)
        #expect(notification.collapseId == nil)
        #expect(notification.apnsID == apnsID)
        #expect(notification.deviceToken == [1, 2, 3])
        #expect(try APNsNotification.pushToTalk(deviceToken: [1], payload: Body()).apnsID == nil)
    }

    @Test func thePushToTalkTypeIsTheOneTheLocalPushFramesUse() {
        #expect(APNsNotification.pushToTalkType == PushFrame.pushToTalk.rawValue)
    }

    @Test func thePayloadIsJSONWithSortedKeysAndUnescapedSlashes() throws {
        let notification = try APNsNotification.pushToTalk(deviceToken: [1], payload: Body())
        #expect(String(decoding: notification.payload, as: UTF8.self) == #"{"a":"x/y","z":1}"#)
        let wake = PushPayload(channel: "c", activeSpeaker: "Ann", burst: "b", sentAt: 7)
        let encoded = try APNsNotification.pushToTalk(deviceToken: [1], payload: wake).payload
        #expect(
            String(decoding: encoded, as: UTF8.self)
                == #"{"activeSpeaker":"Ann","aps":{},"burst":"b","channel":"c","sentAt":7}"#)
    }

    @Test func pushToTalkHeadersCarryTheTopicPriorityAndExpiration() throws {
        let notification = try APNsNotification.pushToTalk(deviceToken: [0xAB, 0xCD], payload: Body())
        let headers = notification.headers(jwt: "h.c.s", topic: APNsSettingsTests.valid.topic)
        #expect(
            headers.map { "\($0.name): \($0.value)" } == [
                "authorization: bearer h.c.s", "apns-push-type: pushtotalk", "apns-topic: com.example.walkie.voip-ptt",
                "apns-priority: 10", "apns-expiration: 0", "content-type: application/json",
            ])
    }

    @Test func theTokenIsLowercaseHexWithLeadingZeros() {
        func hex(_ token: [UInt8]) -> String {
            APNsNotification(deviceToken: token, pushType: "pushtotalk", priority: 10, expiration: 0, payload: Data())
                .deviceTokenHex
        }
        #expect(hex([0x00, 0x0A, 0xFF, 0x10]) == "000aff10")
        #expect(hex([]) == "")
        var generator = SystemRandomNumberGenerator()
        for count in [1, 32, 100] {
            let token = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
            #expect(hex(token) == HexCoding.encode(token))
        }
    }

    @Test func theLogPrefixIsAtMostEightHexCharacters() {
        let long = APNsNotification(
            deviceToken: Array(0..<32), pushType: "pushtotalk", priority: 10, expiration: 0, payload: Data())
        #expect(long.tokenPrefix == "00010203")
        let short = APNsNotification(
            deviceToken: [0xFE, 0x01], pushType: "pushtotalk", priority: 10, expiration: 0, payload: Data())
        #expect(short.tokenPrefix == "fe01")
    }

    @Test func theLimitIsTheVoIPLimit() {
        #expect(APNsNotification.maximumPayloadSize == 5120)
    }

    @Test func aPayloadOfExactlyTheLimitIsSent() async throws {
        let double = try await APNsDouble.start()
        let client: APNsClient
        do {
            client = try APNsClient(
                settings: double.settings, eventLoopGroup: MultiThreadedEventLoopGroup.singleton,
                logger: APNsClientTests.logger, timeout: APNsClient.testRequestTimeout)
        } catch {
            try await double.shutdown()
            throw error
        }
        var notification = try APNsClientTests.wake(APNsClientTests.token(count: 32, seed: 40))
        let json = notification.payload
        // Spaces before the closing brace keep it the same JSON object.
        notification.payload =
            json.dropLast()
            + Data(repeating: UInt8(ascii: " "), count: APNsNotification.maximumPayloadSize - json.count)
            + json.suffix(1)
        #expect(notification.payload.count == 5120)
        let outcome = try? await client.send(notification, on: MultiThreadedEventLoopGroup.singleton.next()).get()
        let requests = double.requests()
        await client.shutdown()
        try await double.shutdown()
        guard case .sent = outcome else {
            Issue.record("expected .sent, got \(outcome.map(String.init(describing:)) ?? "nil")")
            return
        }
        #expect(requests.map(\.body.count) == [5120])
        #expect(requests.map(\.problems) == [[]])
    }
}
