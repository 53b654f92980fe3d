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

/// `APNsClient` against the local APNs double, over loopback.
@Suite struct APNsClientTests {
    let loop = MultiThreadedEventLoopGroup.singleton.next()

    @Test func aPushToTalkWakeArrivesAsAppleRequiresItAndIsSent() async throws {
        try await withDoubleAndClient { double, client in
            let token = Self.token(count: 32, seed: 1)
            let payload = Self.wakePayload()
            let apnsID = UUID()
            let outcome = try await client.send(
                try .pushToTalk(deviceToken: token, payload: payload, apnsID: apnsID), on: loop
            ).get()

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
            _ = try await client.send(
                try Self.wake(Self.token(count: 32, seed: 4)), on: loop, now: now.addingTimeInterval(39 * 60)
            ).get()

            let requests = try await double.waitForRequests(count: 2, timeout: .seconds(10))
            #expect(requests.map(\.problems) == [[], []])
            let first = try #require(requests[0].providerToken)
            let second = try #require(requests[1].providerToken)
            #expect(first.jwt == second.jwt)
            #expect(first.claims.iat == Int64(now.timeIntervalSince1970.rounded(.down)))
            #expect(
                client.providerTokenAge(now: now.addingTimeInterval(39 * 60)).map { $0 >= 39 * 60 && $0 < 39 * 60 + 1 }
                    == true)
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
            let early = try await client.send(try Self.wake(token), on: loop, now: start.addingTimeInterval(19 * 60))
                .get()
            let late = try await client.send(try Self.wake(token), on: loop, now: start.addingTimeInterval(20 * 60))
                .get()
            #expect(early.action == .none && late.action == .none)

            let requests = try await double.waitForRequests(count: 3, timeout: .seconds(10))
            #expect(requests.map(\.problems) == [[], [], []])
            let tokens = requests.map { $0.providerToken?.jwt }
            #expect(tokens[0] != nil && tokens[0] == tokens[1], "a token younger than 20 minutes is kept")
            #expect(tokens[2] != nil && tokens[2] != tokens[1], "the invalidated token is replaced at 20 minutes")
            #expect(
                requests[2].jwtClaims?.iat
                    == Int64(start.addingTimeInterval(20 * 60).timeIntervalSince1970.rounded(.down)))
            #expect(client.providerTokenAge(now: start.addingTimeInterval(20 * 60)).map { $0 >= 0 && $0 < 1 } == true)
        }
    }

    @Test func aClosedPortFailsAndBacksOff() async throws {
        let double = try await APNsDouble.start()
        let client = try APNsClient(
            settings: double.settings, eventLoopGroup: MultiThreadedEventLoopGroup.singleton, logger: Self.logger)
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
        let client = try APNsClient(
            settings: settings, eventLoopGroup: MultiThreadedEventLoopGroup.singleton, logger: Self.logger,
            timeout: APNsClient.testRequestTimeout)
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
            let sent = try await client.send(notification, on: loop).get()
            guard case .sent = sent else {
                Issue.record("the second notification was not sent: \(sent)")
                return
            }
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
        let client = try APNsClient(
            settings: settings, eventLoopGroup: MultiThreadedEventLoopGroup.singleton, logger: Self.logger,
            timeout: APNsClient.testRequestTimeout)
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
            _ = try APNsClient(
                settings: settings, eventLoopGroup: MultiThreadedEventLoopGroup.singleton, logger: Self.logger)
        }
        settings = double.settings
        settings.caFile = double.directory + "/missing.pem"
        #expect(throws: APNsSettingsError.invalid("apns.caFile '\(settings.caFile!)' does not exist")) {
            _ = try APNsClient(
                settings: settings, eventLoopGroup: MultiThreadedEventLoopGroup.singleton, logger: Self.logger)
        }
    }

    // MARK: - Helpers

    static let logger: Logger = {
        var logger = Logger(label: "apns-test")
        logger.logLevel =
            ProcessInfo.processInfo.environment["PTT_TEST_LOG"].flatMap(Logger.Level.init(rawValue:)) ?? .critical
        return logger
    }()

    /// Runs `body` with a fresh double and a client pointed at it, shutting both down afterwards.
    private func withDoubleAndClient(_ body: (APNsDouble, APNsClient) async throws -> Void) async throws {
        let double = try await APNsDouble.start()
        let client: APNsClient
        do {
            client = try APNsClient(
                settings: double.settings, eventLoopGroup: MultiThreadedEventLoopGroup.singleton, logger: Self.logger,
                timeout: APNsClient.testRequestTimeout)
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

    private static func sendThenShutdown(
        _ client: APNsClient, _ notification: APNsNotification, on loop: EventLoop,
        now: Date = Date()
    ) async -> APNsOutcome {
        let outcome = try? await client.send(notification, on: loop, now: now).get()
        await client.shutdown()
        return outcome ?? .failed(reason: "the future failed, which send promises never to do")
    }

    /// A deterministic token of `count` bytes.
    static func token(count: Int, seed: UInt8) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed) &* 7) }
    }

    static func wakePayload() -> PushPayload {
        PushPayload(
            channel: "6f1c3a52-0d7e-4d3b-9a43-2f1e5b8c7a90", activeSpeaker: "Alice", burst: "burst-1",
            sentAt: Int64(Date().timeIntervalSince1970 * 1000))
    }

    static func wake(_ token: [UInt8]) throws -> APNsNotification {
        try .pushToTalk(deviceToken: token, payload: wakePayload())
    }
}
