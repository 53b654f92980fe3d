import APNsTestSupport
import Crypto
import Foundation
import Logging
import NIOCore
import NIOPosix
import PTTProtocol
import TestSupport
import Testing

@testable import APNs

/// Reading APNs answers and deciding what to do about them.
@Suite struct APNsOutcomeTests {
    @Test(arguments: [
        (APNsOutcome.sent(apnsID: "x"), APNsAction.none),
        (.rejected(status: 410, reason: "Unregistered"), .removeToken),
        (.rejected(status: 410, reason: "ExpiredToken"), .removeToken),
        (.rejected(status: 400, reason: "BadDeviceToken"), .removeToken),
        (.rejected(status: 400, reason: "DeviceTokenNotForTopic"), .none),
        (.rejected(status: 403, reason: "ExpiredProviderToken"), .refreshProviderToken),
        (.rejected(status: 403, reason: "InvalidProviderToken"), .none),
        (.rejected(status: 429, reason: "TooManyRequests"), .backOff),
        (.rejected(status: 429, reason: "TooManyProviderTokenUpdates"), .backOff),
        (.rejected(status: 500, reason: "InternalServerError"), .backOff),
        (.rejected(status: 503, reason: "ServiceUnavailable"), .backOff),
        (.rejected(status: 503, reason: "Shutdown"), .backOff),
        (.rejected(status: 0, reason: "PayloadTooLarge"), .none),
        (.failed(reason: "connection refused"), .backOff),
    ])
    func classification(outcome: APNsOutcome, action: APNsAction) {
        #expect(outcome.action == action)
    }

    @Test func theReasonComesFromTheJSONBodyOrElseTheStatus() {
        #expect(APNsOutcome.answer(status: 200, body: [], apnsID: "abc") == .sent(apnsID: "abc"))
        #expect(
            APNsOutcome.answer(
                status: 410, body: Array(#"{"reason":"Unregistered","timestamp":1760000000000}"#.utf8), apnsID: nil)
                == .rejected(status: 410, reason: "Unregistered"))
        #expect(APNsOutcome.answer(status: 503, body: [], apnsID: nil) == .rejected(status: 503, reason: "HTTP 503"))
        #expect(
            APNsOutcome.answer(status: 502, body: Array("<html>bad gateway</html>".utf8), apnsID: nil)
                == .rejected(status: 502, reason: "HTTP 502"))
    }

    @Test func theRequestCarriesEveryAPNsHeader() throws {
        let apnsID = UUID()
        let notification = APNsNotification(
            deviceToken: [0xAB, 0x01, 0xFF], pushType: "pushtotalk", priority: 10, expiration: 0,
            collapseId: "c1", payload: Data("{}".utf8), apnsID: apnsID)
        #expect(notification.path == "/3/device/ab01ff")
        #expect(notification.tokenPrefix == "ab01ff")
        let headers = notification.headers(jwt: "h.c.s", topic: "com.example.walkie.voip-ptt")
        #expect(
            headers.map { "\($0.name): \($0.value)" } == [
                "authorization: bearer h.c.s", "apns-push-type: pushtotalk", "apns-topic: com.example.walkie.voip-ptt",
                "apns-priority: 10", "apns-expiration: 0", "apns-collapse-id: c1",
                "apns-id: \(apnsID.uuidString.lowercased())",
                "content-type: application/json",
            ])
        let request = try notification.request(baseURL: "https://127.0.0.1:8443", jwt: "h.c.s", topic: "t")
        #expect(request.method == .POST)
        #expect(request.url.absoluteString == "https://127.0.0.1:8443/3/device/ab01ff")
    }
}
