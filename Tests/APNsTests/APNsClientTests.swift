@testable import APNs
import APNsTestSupport
import Crypto
import Foundation
import Logging
import NIOCore
import NIOPosix
import PTTProtocol
import TestSupport
import Testing

/// `APNsClient` against the local APNs double, over loopback.
@Suite struct APNsClientTests {
    let loop = MultiThreadedEventLoopGroup.singleton.next()

    @Test func aPushToTalkWakeArrivesAsAppleRequiresItAndIsSent() async throws {
        try await withDoubleAndClient { double, client in
            let token = Self.token(count: 32, seed: 1)
            let payload = Self.wakePayload()
            let apnsID = UUID()
            let outcome = try await client.send(try .pushToTalk(deviceToken: token, payload: payload, apnsID: apnsID), on: loop).get()

            #expect(outcome == .sent(apnsID: apnsID.uuidString.lowercased()))
            let request = try #require(try await double.waitForRequests(count: 1, timeout: .seconds(10)).first)
            #expect(request.problems == [])
            #expect(request.method == "POST")
            #expect(request.scheme == "https")
            #expect(request.path == "/3/device/" + HexCoding.encode(token))
            #expect(request.deviceToken == HexCoding.encode(token))
            #expect(request.header("apns-push-type") == "pushtotalk")
            #expect(request.header("apns-topic") == "com.example.walkie.voip-ptt")
            #expect(request.header("apns-priority") == "10")
            #expect(request.header("apns-expiration") == "0")
            #expect(request.header("apns-collapse-id") == nil)
            #expect(request.payload == payload)
            #expect(request.jwtHeader == .init(alg: "ES256", kid: double.keyId, typ: nil))
            #expect(request.jwtClaims?.iss == double.teamId)
            #expect(request.providerToken?.signatureIsValid == true)
        }
    }

    @Test func theOutcomeCompletesOnTheCallersEventLoop() async throws {
        try await withDoubleAndClient { double, client in
            let future = client.send(try Self.wake(Self.token(count: 32, seed: 2)), on: loop)
            #expect(future.eventLoop === loop)
            let onLoop = try await future.map { _ in self.loop.inEventLoop }.get()
            #expect(onLoop)
        }
    }

    @Test func twoSendsShareOneProviderToken() async throws {
        try await withDoubleAndClient { double, client in
            let now = Date()
            _ = try await client.send(try Self.wake(Self.token(count: 32, seed: 3)), on: loop, now: now).get()
            _ = try await client.send(try Self.wake(Self.token(count: 32, seed: 4)), on: loop, now: now.addingTimeInterval(39 * 60)).get()

            let requests = try await double.waitForRequests(count: 2, timeout: .seconds(10))
            #expect(requests.map(\.problems) == [[], []])
            let first = try #require(requests[0].providerToken)
            let second = try #require(requests[1].providerToken)
            #expect(first.jwt == second.jwt)
            #expect(first.claims.iat == Int64(now.timeIntervalSince1970.rounded(.down)))
            #expect(client.providerTokenAge(now: now.addingTimeInterval(39 * 60)).map { $0 >= 39 * 60 && $0 < 39 * 60 + 1 } == true)
        }
    }

    @Test func unregisteredRemovesTheToken() async throws {
        try await withDoubleAndClient { double, client in
            let token = Self.token(count: 32, seed: 5)
            double.respond(toToken: HexCoding.encode(token), status: 410, reason: "Unregistered")
            let outcome = try await client.send(try Self.wake(token), on: loop).get()
            #expect(outcome == .rejected(status: 410, reason: "Unregistered"))
            #expect(outcome.action == .removeToken)
        }
    }

    @Test func badDeviceTokenRemovesTheToken() async throws {
        try await withDoubleAndClient { double, client in
            let token = Self.token(count: 32, seed: 6)
            double.respond(toToken: HexCoding.encode(token), status: 400, reason: "BadDeviceToken")
            let outcome = try await client.send(try Self.wake(token), on: loop).get()
            #expect(outcome == .rejected(status: 400, reason: "BadDeviceToken"))
            #expect(outcome.action == .removeToken)
        }
    }

    @Test(arguments: [(429, "TooManyRequests"), (503, "ServiceUnavailable"), (500, "InternalServerError")])
    func overloadBacksOff(status: Int, reason: String) async throws {
        try await withDoubleAndClient { double, client in
            double.respondToAll(status: status, reason: reason)
            let outcome = try await client.send(try Self.wake(Self.token(count: 32, seed: 7)), on: loop).get()
            #expect(outcome == .rejected(status: status, reason: reason))
            #expect(outcome.action == .backOff)
        }
    }

    @Test func aRejectionWithoutAReasonIsNamedByItsStatus() async throws {
        try await withDoubleAndClient { double, client in
            double.respondToAll(status: 503, reason: nil)
            let outcome = try await client.send(try Self.wake(Self.token(count: 32, seed: 8)), on: loop).get()
            #expect(outcome == .rejected(status: 503, reason: "HTTP 503"))
        }
    }

    @Test func expiredProviderTokenIsReplacedOnceTwentyMinutesOld() async throws {
        try await withDoubleAndClient { double, client in
            let token = Self.token(count: 32, seed: 9)
            let start = Date().addingTimeInterval(-30 * 60)
            double.respond(toToken: HexCoding.encode(token), status: 403, reason: "ExpiredProviderToken")
            let rejected = try await client.send(try Self.wake(token), on: loop, now: start).get()
            #expect(rejected == .rejected(status: 403, reason: "ExpiredProviderToken"))
            #expect(rejected.action == .refreshProviderToken)

            double.respond(toToken: HexCoding.encode(token), status: 200, reason: nil)
            let early = try await client.send(try Self.wake(token), on: loop, now: start.addingTimeInterval(19 * 60)).get()
            let late = try await client.send(try Self.wake(token), on: loop, now: start.addingTimeInterval(20 * 60)).get()
            #expect(early.action == .none && late.action == .none)

            let requests = try await double.waitForRequests(count: 3, timeout: .seconds(10))
            #expect(requests.map(\.problems) == [[], [], []])
            let tokens = requests.map { $0.providerToken?.jwt }
            #expect(tokens[0] != nil && tokens[0] == tokens[1], "a token younger than 20 minutes is kept")
            #expect(tokens[2] != nil && tokens[2] != tokens[1], "the invalidated token is replaced at 20 minutes")
            #expect(requests[2].jwtClaims?.iat == Int64(start.addingTimeInterval(20 * 60).timeIntervalSince1970.rounded(.down)))
            #expect(client.providerTokenAge(now: start.addingTimeInterval(20 * 60)).map { $0 >= 0 && $0 < 1 } == true)
        }
    }

    @Test func aClosedPortFailsAndBacksOff() async throws {
        let double = try await APNsDouble.start()
        let client = try APNsClient(settings: double.settings, eventLoopGroup: MultiThreadedEventLoopGroup.singleton, logger: Self.logger)
        try await double.shutdown()
        let outcome = await Self.sendThenShutdown(client, try Self.wake(Self.token(count: 32, seed: 10)), on: loop)
        guard case .failed(let reason) = outcome else {
            Issue.record("expected .failed, got \(outcome)")
            return
        }
        #expect(!reason.isEmpty)
        #expect(outcome.action == .backOff)
    }

    @Test func aServerOutsideTheTrustedRootsFails() async throws {
        let double = try await APNsDouble.start()
        var settings = double.settings
        settings.caFile = nil  // system roots: the double's throwaway CA is not among them
        let client = try APNsClient(settings: settings, eventLoopGroup: MultiThreadedEventLoopGroup.singleton, logger: Self.logger)
        let outcome = await Self.sendThenShutdown(client, try Self.wake(Self.token(count: 32, seed: 11)), on: loop)
        try await double.shutdown()
        guard case .failed = outcome else {
            Issue.record("expected .failed, got \(outcome)")
            return
        }
        #expect(double.requests().isEmpty)
    }

    @Test func aHundredByteTokenIsSentWhole() async throws {
        try await withDoubleAndClient { double, client in
            let token = Self.token(count: 100, seed: 12)
            let outcome = try await client.send(try Self.wake(token), on: loop).get()
            guard case .sent = outcome else {
                Issue.record("expected .sent, got \(outcome)")
                return
            }
            let request = try #require(try await double.waitForRequests(count: 1, timeout: .seconds(10)).first)
            #expect(request.problems == [])
            #expect(request.deviceToken?.count == 200)
            #expect(request.deviceToken.flatMap(HexCoding.decode) == token)
        }
    }

    @Test func anOversizedPayloadIsRefusedWithoutContactingAPNs() async throws {
        try await withDoubleAndClient { double, client in
            var notification = try Self.wake(Self.token(count: 32, seed: 13))
            notification.payload = Data(repeating: UInt8(ascii: " "), count: 5121)
            let refused = try await client.send(notification, on: loop).get()
            #expect(refused == .rejected(status: 0, reason: "PayloadTooLarge"))
            #expect(refused.action == .none)

            notification.payload = try JSONEncoder().encode(Self.wakePayload())
            notification.deviceToken = Self.token(count: 32, seed: 14)
            _ = try await client.send(notification, on: loop).get()
            let requests = try await double.waitForRequests(count: 1, timeout: .seconds(10))
            #expect(requests.map(\.deviceToken) == [HexCoding.encode(Self.token(count: 32, seed: 14))])
        }
    }

    @Test func collapseIdAndOtherPushTypesAreSentAsHeaders() async throws {
        try await withDoubleAndClient { double, client in
            var notification = try Self.wake(Self.token(count: 32, seed: 15))
            notification.collapseId = "channel-1"
            _ = try await client.send(notification, on: loop).get()
            let request = try #require(try await double.waitForRequests(count: 1, timeout: .seconds(10)).first)
            #expect(request.header("apns-collapse-id") == "channel-1")
            #expect(request.header("content-type") == "application/json")
            #expect(request.headerValues("authorization").count == 1)
        }
    }

    @Test func theDoubleReportsWhatAPNsWouldRefuse() async throws {
        let double = try await APNsDouble.start()
        var settings = double.settings
        settings.keyId = "WRONGKEY12"
        settings.teamId = "WRONGTEAM1"
        settings.bundleId = "com.example.other"
        let client = try APNsClient(settings: settings, eventLoopGroup: MultiThreadedEventLoopGroup.singleton, logger: Self.logger)
        var notification = try Self.wake(Self.token(count: 32, seed: 16))
        notification.expiration = 60
        notification.payload = Data(#"{"aps":{"alert":{"body":"hi"}},"channel":"c","sentAt":1}"#.utf8)
        _ = await Self.sendThenShutdown(client, notification, on: loop, now: Date().addingTimeInterval(-2 * 3600))
        let requests = try await double.waitForRequests(count: 1, timeout: .seconds(10))
        try await double.shutdown()
        let problems = requests[0].problems
        #expect(problems.contains("JWT kid is WRONGKEY12, expected KEY1234567"))
        #expect(problems.contains("JWT iss is WRONGTEAM1, expected TEAM123456"))
        #expect(problems.contains { $0.hasPrefix("JWT iat is") && $0.contains("over an hour") })
        #expect(problems.contains("apns-topic is com.example.other.voip-ptt, expected com.example.walkie.voip-ptt"))
        #expect(problems.contains("apns-expiration is 60, expected 0"))
        #expect(problems.contains("payload's aps is not an empty object"))
        #expect(problems.count == 6, "the signature still verifies: \(problems)")
    }

    @Test func aMissingKeyFileOrCAFileIsAAPNsSettingsError() async throws {
        let double = try await APNsDouble.start()
        try await double.shutdown()
        var settings = double.settings
        settings.keyFile = double.directory + "/missing.p8"
        #expect(throws: APNsSettingsError.invalid("apns.keyFile '\(settings.keyFile)' does not exist")) {
            _ = try APNsClient(settings: settings, eventLoopGroup: MultiThreadedEventLoopGroup.singleton, logger: Self.logger)
        }
        settings = double.settings
        settings.caFile = double.directory + "/missing.pem"
        #expect(throws: APNsSettingsError.invalid("apns.caFile '\(settings.caFile!)' does not exist")) {
            _ = try APNsClient(settings: settings, eventLoopGroup: MultiThreadedEventLoopGroup.singleton, logger: Self.logger)
        }
    }

    // MARK: - Helpers

    static let logger: Logger = {
        var logger = Logger(label: "apns-test")
        logger.logLevel = ProcessInfo.processInfo.environment["PTT_TEST_LOG"].flatMap(Logger.Level.init(rawValue:)) ?? .critical
        return logger
    }()

    /// Runs `body` with a fresh double and a client pointed at it, shutting both down afterwards.
    private func withDoubleAndClient(_ body: (APNsDouble, APNsClient) async throws -> Void) async throws {
        let double = try await APNsDouble.start()
        let client: APNsClient
        do {
            client = try APNsClient(settings: double.settings, eventLoopGroup: MultiThreadedEventLoopGroup.singleton, logger: Self.logger)
        } catch {
            try await double.shutdown()
            throw error
        }
        do {
            try await body(double, client)
        } catch {
            await client.shutdown()
            try await double.shutdown()
            throw error
        }
        await client.shutdown()
        try await double.shutdown()
    }

    private static func sendThenShutdown(_ client: APNsClient, _ notification: APNsNotification, on loop: EventLoop,
                                         now: Date = Date()) async -> APNsOutcome {
        let outcome = try? await client.send(notification, on: loop, now: now).get()
        await client.shutdown()
        return outcome ?? .failed(reason: "the future failed, which send promises never to do")
    }

    /// A deterministic token of `count` bytes.
    static func token(count: Int, seed: UInt8) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed) &* 7) }
    }

    static func wakePayload() -> PushPayload {
        PushPayload(channel: "6f1c3a52-0d7e-4d3b-9a43-2f1e5b8c7a90", activeSpeaker: "Alice", burst: "burst-1",
                    sentAt: Int64(Date().timeIntervalSince1970 * 1000))
    }

    static func wake(_ token: [UInt8]) throws -> APNsNotification {
        try .pushToTalk(deviceToken: token, payload: wakePayload())
    }
}

/// The provider token: signed as ES256 over the JOSE header and claims, checked by the double's own decoder.
@Suite struct APNsProviderTokenTests {
    @Test func itVerifiesWithThePublicKeyAndDecodesToTheRightHeaderAndClaims() throws {
        let key = P256.Signing.PrivateKey()
        let now = Date(timeIntervalSince1970: 1_760_000_000.75)
        let token = try APNsProviderToken.make(keyId: "KEY1234567", teamId: "TEAM123456", now: now, key: key)
        #expect(!token.jwt.contains("=") && !token.jwt.contains("+") && !token.jwt.contains("/"))
        #expect(token.issuedAt == Date(timeIntervalSince1970: 1_760_000_000))

        let decoded = try DecodedProviderToken(jwt: token.jwt, publicKey: key.publicKey)
        #expect(decoded.signatureIsValid)
        #expect(decoded.header == .init(alg: "ES256", kid: "KEY1234567", typ: nil))
        #expect(decoded.claims == .init(iss: "TEAM123456", iat: 1_760_000_000))
        #expect(token.jwt.split(separator: ".").first == Substring(APNsProviderToken.base64URL(Data(#"{"alg":"ES256","kid":"KEY1234567"}"#.utf8))))
    }

    @Test func aTamperedTokenOrAnotherKeyDoesNotVerify() throws {
        let key = P256.Signing.PrivateKey()
        let token = try APNsProviderToken.make(keyId: "KEY1234567", teamId: "TEAM123456", now: Date(), key: key)
        var parts = token.jwt.split(separator: ".").map(String.init)
        parts[1] = APNsProviderToken.base64URL(Data(#"{"iat":1,"iss":"TEAM123456"}"#.utf8))
        let tampered = try DecodedProviderToken(jwt: parts.joined(separator: "."), publicKey: key.publicKey)
        #expect(!tampered.signatureIsValid)
        let otherKey = try DecodedProviderToken(jwt: token.jwt, publicKey: P256.Signing.PrivateKey().publicKey)
        #expect(!otherKey.signatureIsValid)
    }

    @Test func theKeyFileMustExist() {
        let path = NSTemporaryDirectory() + "apns-missing-\(UUID().uuidString).p8"
        #expect(throws: APNsSettingsError.invalid("apns.keyFile '\(path)' does not exist")) { try APNsSigningKey.load(file: path) }
    }

    @Test func aGarbageKeyFileIsRefusedByName() throws {
        let path = try Self.write("this is not a key\n")
        let error = #expect(throws: APNsSettingsError.self) { try APNsSigningKey.load(file: path) }
        #expect(error?.description.contains(path) == true)
        #expect(error?.description.contains("PKCS#8") == true)
    }

    @Test func aP384KeyIsRefusedByName() throws {
        let path = try Self.write(P384.Signing.PrivateKey().pemRepresentation)
        let error = #expect(throws: APNsSettingsError.self) { try APNsSigningKey.load(file: path) }
        #expect(error?.description.contains(path) == true)
        #expect(error?.description.contains("P-256") == true)
    }

    @Test(.enabled(if: Tools.path("openssl") != nil)) func anRSAKeyIsRefusedByName() async throws {
        let path = NSTemporaryDirectory() + "apns-rsa-\(UUID().uuidString).p8"
        let openssl = try await ToolRun.run(try #require(Tools.path("openssl")),
                                            ["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", path])
        try #require(openssl.status == 0, "openssl: \(openssl.stderr)")
        #expect(try String(contentsOfFile: path, encoding: .utf8).contains("BEGIN PRIVATE KEY"))
        let error = #expect(throws: APNsSettingsError.self) { try APNsSigningKey.load(file: path) }
        #expect(error?.description.contains(path) == true)
        #expect(error?.description.contains("P-256") == true)
    }

    @Test func aP256PKCS8KeyLoadsAndSigns() throws {
        let key = P256.Signing.PrivateKey()
        let path = try Self.write(key.pemRepresentation)
        let loaded = try APNsSigningKey.load(file: path)
        #expect(try loaded.privateKey().publicKey.rawRepresentation == key.publicKey.rawRepresentation)
    }

    static func write(_ text: String) throws -> String {
        let path = NSTemporaryDirectory() + "apns-key-\(UUID().uuidString).p8"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}

/// When the shared provider token is replaced.
@Suite struct APNsTokenCacheTests {
    let start = Date(timeIntervalSince1970: 1_760_000_000)

    /// A cache driver that counts how many tokens were made.
    struct Driver {
        var cache = APNsTokenCache()
        var made = 0
        mutating func token(at minutes: Double, from start: Date) -> APNsProviderToken {
            cache.token(now: start.addingTimeInterval(minutes * 60)) { now in
                made += 1
                return APNsProviderToken(jwt: "token-\(made)", issuedAt: now)
            }
        }
    }

    @Test func aTokenIsReusedUntilFortyMinutesOldThenReplaced() {
        var driver = Driver()
        #expect(driver.cache.age(now: start) == nil)
        #expect(driver.token(at: 0, from: start).jwt == "token-1")
        #expect(driver.token(at: 20, from: start).jwt == "token-1")
        #expect(driver.token(at: 39.99, from: start).jwt == "token-1")
        #expect(driver.cache.age(now: start.addingTimeInterval(39 * 60)).map { abs($0 - 39 * 60) < 0.001 } == true)
        #expect(driver.token(at: 40, from: start).jwt == "token-2")
        #expect(driver.token(at: 79.99, from: start).jwt == "token-2")
        #expect(driver.token(at: 80, from: start).jwt == "token-3")
        #expect(driver.made == 3)
    }

    @Test func invalidationReplacesATokenAtLeastTwentyMinutesOld() {
        var driver = Driver()
        _ = driver.token(at: 0, from: start)
        driver.cache.invalidate(now: start.addingTimeInterval(25 * 60))
        #expect(driver.token(at: 25, from: start).jwt == "token-2")
        #expect(driver.token(at: 26, from: start).jwt == "token-2", "the new token is not invalidated")
        #expect(driver.made == 2)
    }

    @Test func invalidationKeepsATokenYoungerThanTwentyMinutesUntilItIsTwenty() {
        var driver = Driver()
        _ = driver.token(at: 0, from: start)
        driver.cache.invalidate(now: start.addingTimeInterval(5 * 60))
        #expect(driver.token(at: 5, from: start).jwt == "token-1")
        driver.cache.invalidate(now: start.addingTimeInterval(10 * 60))
        #expect(driver.token(at: 19.99, from: start).jwt == "token-1")
        #expect(driver.token(at: 20, from: start).jwt == "token-2")
        #expect(driver.token(at: 30, from: start).jwt == "token-2")
    }

    @Test func invalidatingBeforeAnyTokenDoesNothing() {
        var driver = Driver()
        driver.cache.invalidate(now: start)
        #expect(driver.token(at: 0, from: start).jwt == "token-1")
        #expect(driver.token(at: 21, from: start).jwt == "token-1")
    }

    @Test func aTokenFromTheFutureIsReplaced() {
        var driver = Driver()
        _ = driver.token(at: 10, from: start)
        #expect(driver.token(at: 9.5, from: start).jwt == "token-1", "within a minute of skew")
        #expect(driver.token(at: 8, from: start).jwt == "token-2", "the clock went back")
    }
}

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
        #expect(APNsOutcome.answer(status: 410, body: Array(#"{"reason":"Unregistered","timestamp":1760000000000}"#.utf8), apnsID: nil)
            == .rejected(status: 410, reason: "Unregistered"))
        #expect(APNsOutcome.answer(status: 503, body: [], apnsID: nil) == .rejected(status: 503, reason: "HTTP 503"))
        #expect(APNsOutcome.answer(status: 502, body: Array("<html>bad gateway</html>".utf8), apnsID: nil) == .rejected(status: 502, reason: "HTTP 502"))
    }

    @Test func theRequestCarriesEveryAPNsHeader() throws {
        let apnsID = UUID()
        let notification = APNsNotification(deviceToken: [0xAB, 0x01, 0xFF], pushType: "pushtotalk", priority: 10, expiration: 0,
                                            collapseId: "c1", payload: Data("{}".utf8), apnsID: apnsID)
        #expect(notification.path == "/3/device/ab01ff")
        #expect(notification.tokenPrefix == "ab01ff")
        let headers = notification.headers(jwt: "h.c.s", topic: "com.example.walkie.voip-ptt")
        #expect(headers.map { "\($0.name): \($0.value)" } == [
            "authorization: bearer h.c.s", "apns-push-type: pushtotalk", "apns-topic: com.example.walkie.voip-ptt",
            "apns-priority: 10", "apns-expiration: 0", "apns-collapse-id: c1", "apns-id: \(apnsID.uuidString.lowercased())",
            "content-type: application/json",
        ])
        let request = try notification.request(baseURL: "https://127.0.0.1:8443", jwt: "h.c.s", topic: "t")
        #expect(request.method == .POST)
        #expect(request.url.absoluteString == "https://127.0.0.1:8443/3/device/ab01ff")
    }
}
