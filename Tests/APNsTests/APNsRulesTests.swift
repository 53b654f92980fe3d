@testable import APNs
import APNsTestSupport
import Foundation
import NIOCore
import NIOPosix
import PTTProtocol
import Testing

/// The `apns` settings: what `validate()` refuses, by name, and what the accepted values lead to.
@Suite struct APNsSettingsTests {
    static let valid = APNsSettings(keyFile: "/etc/pttd/AuthKey_KEY1234567.p8", keyId: "KEY1234567", teamId: "TEAM123456",
                                    bundleId: "com.example.walkie")

    /// `valid` with one change.
    static func changed(_ change: (inout APNsSettings) -> Void) -> APNsSettings {
        var settings = valid
        change(&settings)
        return settings
    }

    @Test func validSettingsPass() throws {
        try Self.valid.validate()
        try Self.changed { $0.environment = "sandbox" }.validate()
        try Self.changed { $0.endpoint = "https://127.0.0.1:8443" }.validate()
        try Self.changed { $0.bundleId = String(repeating: "a", count: 200) }.validate()
        try Self.changed { $0.keyId = "0123456789"; $0.teamId = "abcdefghij" }.validate()
    }

    @Test func theMessageQuotesTheRefusedValue() {
        #expect(throws: APNsSettingsError.invalid("apns.keyId must be the 10-character key id, got 'short'")) {
            try Self.changed { $0.keyId = "short" }.validate()
        }
        #expect(APNsSettingsError.invalid("x y").description == "x y")
    }

    @Test(arguments: [
        ("apns.keyFile", APNsSettingsTests.changed { $0.keyFile = "" }),
        ("apns.keyId", APNsSettingsTests.changed { $0.keyId = "KEY123456" }),
        ("apns.keyId", APNsSettingsTests.changed { $0.keyId = "KEY12345678" }),
        ("apns.keyId", APNsSettingsTests.changed { $0.keyId = "KEY-234567" }),
        ("apns.keyId", APNsSettingsTests.changed { $0.keyId = "KEY123456é" }),
        ("apns.teamId", APNsSettingsTests.changed { $0.teamId = "TEAM 12345" }),
        ("apns.teamId", APNsSettingsTests.changed { $0.teamId = "" }),
        ("apns.bundleId", APNsSettingsTests.changed { $0.bundleId = "" }),
        ("apns.bundleId", APNsSettingsTests.changed { $0.bundleId = "com.example walkie" }),
        ("apns.bundleId", APNsSettingsTests.changed { $0.bundleId = "com.example.walkie\n" }),
        ("apns.bundleId", APNsSettingsTests.changed { $0.bundleId = String(repeating: "a", count: 201) }),
        ("apns.environment", APNsSettingsTests.changed { $0.environment = "staging" }),
        ("apns.environment", APNsSettingsTests.changed { $0.environment = "Production" }),
        ("apns.endpoint", APNsSettingsTests.changed { $0.endpoint = "http://127.0.0.1:8443" }),
        ("apns.endpoint", APNsSettingsTests.changed { $0.endpoint = "https://" }),
        ("apns.endpoint", APNsSettingsTests.changed { $0.endpoint = "127.0.0.1:8443" }),
    ])
    func aBadValueIsRefusedByName(setting: String, settings: APNsSettings) {
        let error = #expect(throws: APNsSettingsError.self) { try settings.validate() }
        #expect(error?.description.hasPrefix(setting + " ") == true, "\(error.map(String.init(describing:)) ?? "no error")")
    }

    @Test func theTopicIsTheBundleIdWithTheVoIPPTTSuffix() {
        #expect(Self.valid.topic == "com.example.walkie.voip-ptt")
        #expect(Self.changed { $0.bundleId = "org.example.a" }.topic == "org.example.a.voip-ptt")
    }

    @Test func theEnvironmentPicksTheServerUnlessAnEndpointOverridesIt() {
        #expect(Self.valid.baseURL == "https://api.push.apple.com")
        #expect(Self.changed { $0.environment = "sandbox" }.baseURL == "https://api.sandbox.push.apple.com")
        #expect(Self.changed { $0.environment = "sandbox"; $0.endpoint = "https://127.0.0.1:8443/" }.baseURL == "https://127.0.0.1:8443")
        #expect(Self.changed { $0.endpoint = "https://relay.example:443" }.baseURL == "https://relay.example:443")
    }

    @Test func decodingDefaultsTheEnvironmentAndLeavesTheOverridesOut() throws {
        let json = #"{"keyFile": "k.p8", "keyId": "KEY1234567", "teamId": "TEAM123456", "bundleId": "com.example.walkie"}"#
        let decoded = try JSONDecoder().decode(APNsSettings.self, from: Data(json.utf8))
        #expect(decoded == APNsSettings(keyFile: "k.p8", keyId: "KEY1234567", teamId: "TEAM123456", bundleId: "com.example.walkie",
                                        environment: "production", endpoint: nil, caFile: nil))
        let full = Self.changed { $0.environment = "sandbox"; $0.endpoint = "https://127.0.0.1:1"; $0.caFile = "/tmp/ca.pem" }
        #expect(try JSONDecoder().decode(APNsSettings.self, from: JSONEncoder().encode(full)) == full)
    }

    @Test func decodingRequiresTheKeyAndIdentifiers() {
        let json = #"{"keyId": "KEY1234567", "teamId": "TEAM123456", "bundleId": "b"}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(APNsSettings.self, from: Data(json.utf8)) }
    }
}

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
        #expect(APNsNotification.pushToTalkType == PushFrame.pushToTalk)
    }

    @Test func thePayloadIsJSONWithSortedKeysAndUnescapedSlashes() throws {
        let notification = try APNsNotification.pushToTalk(deviceToken: [1], payload: Body())
        #expect(String(decoding: notification.payload, as: UTF8.self) == #"{"a":"x/y","z":1}"#)
        let wake = PushPayload(channel: "c", activeSpeaker: "Ann", burst: "b", sentAt: 7)
        let encoded = try APNsNotification.pushToTalk(deviceToken: [1], payload: wake).payload
        #expect(String(decoding: encoded, as: UTF8.self) == #"{"activeSpeaker":"Ann","aps":{},"burst":"b","channel":"c","sentAt":7}"#)
    }

    @Test func pushToTalkHeadersCarryTheTopicPriorityAndExpiration() throws {
        let notification = try APNsNotification.pushToTalk(deviceToken: [0xAB, 0xCD], payload: Body())
        let headers = notification.headers(jwt: "h.c.s", topic: APNsSettingsTests.valid.topic)
        #expect(headers.map { "\($0.name): \($0.value)" } == [
            "authorization: bearer h.c.s", "apns-push-type: pushtotalk", "apns-topic: com.example.walkie.voip-ptt",
            "apns-priority: 10", "apns-expiration: 0", "content-type: application/json",
        ])
    }

    @Test func theTokenIsLowercaseHexWithLeadingZeros() {
        func hex(_ token: [UInt8]) -> String {
            APNsNotification(deviceToken: token, pushType: "pushtotalk", priority: 10, expiration: 0, payload: Data()).deviceTokenHex
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
        let long = APNsNotification(deviceToken: Array(0..<32), pushType: "pushtotalk", priority: 10, expiration: 0, payload: Data())
        #expect(long.tokenPrefix == "00010203")
        let short = APNsNotification(deviceToken: [0xFE, 0x01], pushType: "pushtotalk", priority: 10, expiration: 0, payload: Data())
        #expect(short.tokenPrefix == "fe01")
    }

    @Test func theLimitIsTheVoIPLimit() {
        #expect(APNsNotification.maximumPayloadSize == 5120)
    }

    @Test func aPayloadOfExactlyTheLimitIsSent() async throws {
        let double = try await APNsDouble.start()
        let client: APNsClient
        do {
            client = try APNsClient(settings: double.settings, eventLoopGroup: MultiThreadedEventLoopGroup.singleton, logger: APNsClientTests.logger)
        } catch {
            try await double.shutdown()
            throw error
        }
        var notification = try APNsClientTests.wake(APNsClientTests.token(count: 32, seed: 40))
        let json = notification.payload
        // Spaces before the closing brace keep it the same JSON object.
        notification.payload = json.dropLast() + Data(repeating: UInt8(ascii: " "), count: APNsNotification.maximumPayloadSize - json.count) + json.suffix(1)
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

/// Reading APNs answers: the cases `APNsOutcomeTests` leaves out.
@Suite struct APNsAnswerTests {
    @Test func twoHundredIsSentWhateverTheBody() {
        #expect(APNsOutcome.answer(status: 200, body: Array(#"{"reason":"BadTopic"}"#.utf8), apnsID: "id-1") == .sent(apnsID: "id-1"))
        #expect(APNsOutcome.answer(status: 200, body: [], apnsID: nil) == .sent(apnsID: nil))
    }

    @Test(arguments: [
        (400, #"{"reason":"BadTopic"}"#, "BadTopic"),
        (403, #"{"reason":"InvalidProviderToken","extra":[1,2]}"#, "InvalidProviderToken"),
        (410, "", "HTTP 410"),
        (400, #"{"reason":""}"#, "HTTP 400"),
        (410, #"{"timestamp":1760000000000}"#, "HTTP 410"),
        (400, #"{"reason":42}"#, "HTTP 400"),
        (500, #"["reason"]"#, "HTTP 500"),
        (502, "<html>bad gateway</html>", "HTTP 502"),
        (503, #"{"reason":"Shut"#, "HTTP 503"),
    ])
    func theReasonIsTheJSONReasonOrElseTheStatus(status: Int, body: String, reason: String) {
        #expect(APNsOutcome.answer(status: status, body: Array(body.utf8), apnsID: "ignored") == .rejected(status: status, reason: reason))
    }

    @Test(arguments: [
        (APNsOutcome.rejected(status: 410, reason: "HTTP 410"), APNsAction.removeToken),
        (.rejected(status: 400, reason: "BadTopic"), .none),
        (.rejected(status: 400, reason: "baddevicetoken"), .none),
        (.rejected(status: 403, reason: "HTTP 403"), .none),
        (.rejected(status: 404, reason: "BadPath"), .none),
        (.rejected(status: 413, reason: "PayloadTooLarge"), .none),
        (.rejected(status: 502, reason: "HTTP 502"), .none),
        (.rejected(status: 0, reason: "ProviderTokenUnavailable"), .none),
        (.rejected(status: 0, reason: "InvalidEndpoint"), .none),
        (.failed(reason: ""), .backOff),
    ])
    func theRestOfTheRules(outcome: APNsOutcome, action: APNsAction) {
        #expect(outcome.action == action)
    }

    @Test func theDescriptionNamesTheOutcome() {
        #expect(APNsOutcome.sent(apnsID: "abc").description == "sent (apns-id abc)")
        #expect(APNsOutcome.sent(apnsID: nil).description == "sent (apns-id none)")
        #expect(APNsOutcome.rejected(status: 410, reason: "Unregistered").description == "rejected 410 Unregistered")
        #expect(APNsOutcome.failed(reason: "timeout").description == "failed: timeout")
    }
}
