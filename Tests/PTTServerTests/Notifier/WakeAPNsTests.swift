import APNsTestSupport
import Foundation
import PTTCore
import PTTKit
import PTTProtocol
import ServerTestSupport
import TestSupport
import Testing

@testable import PTTServer

/// Wakes through APNs, against a local HTTP/2 TLS stand-in that checks every request. No traffic leaves
/// the machine.
@Suite("Wakes through APNs (a local HTTP/2 double)", .serialized)
struct WakeAPNsTests {
    /// A server with APNs pointed at the double, a talker `ann` (app connection) and `bob`, a member with a
    /// push token and no connection.
    struct Setup {
        let server: TestServer
        let double: APNsDouble
        let ann: Peer
        let bobToken: String

        func takeFloor() async throws {
            guard case .floorGranted = try await ann.request(.floorRequest(FloorCommand(channel: "deck"))) else {
                throw TestFailure("floor not granted")
            }
        }

        func releaseFloor() async throws {
            _ = try await ann.request(.floorRelease(FloorCommand(channel: "deck")))
            _ = try await ann.next("floor-idle")
        }

        /// Waits (bounded) until `GET /api/wakes` satisfies `condition`.
        func totals(until condition: (WakeTotals) -> Bool) async throws -> WakeTotals {
            let deadline = ContinuousClock.now + .seconds(10).scaled
            while true {
                let totals: WakeTotals = try await server.admin.get("/api/wakes")
                if condition(totals) { return totals }
                guard ContinuousClock.now < deadline else {
                    throw TestFailure("wake totals never matched: \(totals.counts)")
                }
                try await Task.sleep(for: .milliseconds(10))
            }
        }
    }

    /// Runs `body` with a ``Setup``; the server's shutdown and then the double's are awaited whether `body`
    /// returns or throws.
    static func withSetUp(
        tokenBytes: Int = 32, doubleStopped: Bool = false, _ body: (Setup) async throws -> Void
    ) async throws {
        let double = try await APNsDouble.start()
        // Stopped: its files stay, so the server starts, and APNs is a port that refuses connections.
        let refusing = doubleStopped ? try RefusingTCPPort() : nil
        var apns = double.settings
        if let refusing { apns.endpoint = "https://127.0.0.1:\(refusing.port)" }
        let settings = apns
        do {
            if doubleStopped { try await double.shutdown() }
            try await withTestServer(configure: { c in
                c.apns = settings
                c.floor.endOfMediaTimeout = .seconds(60)
            }) { server in
                let annSecret = try await server.addUser("ann")
                let bobSecret = try await server.addUser("bob")
                let ann = try await server.connect("ann", secret: annSecret)
                do {
                    _ = try await ann.join("deck", name: "Ann")
                    let token = HexCoding.encode((0..<tokenBytes).map { _ in UInt8.random(in: 0...255) })
                    let bob = try await server.connect("bob", secret: bobSecret, device: "bob-phone")
                    _ = try await bob.join("deck", name: "Bob", pushToken: token)
                    await bob.close()
                    let deadline = ContinuousClock.now + .seconds(10).scaled
                    while try await !member(server, "deck", user: "bob").connections.isEmpty {
                        guard ContinuousClock.now < deadline else { throw TestFailure("bob's connection never closed") }
                        try await Task.sleep(for: .milliseconds(10))
                    }
                    try await body(Setup(server: server, double: double, ann: ann, bobToken: token))
                } catch {
                    await ann.close()
                    throw error
                }
                await ann.close()
            }
        } catch {
            try? await double.shutdown()
            throw error
        }
        try? await double.shutdown()
        withExtendedLifetime(refusing) {}
    }

    @Test(
        "a member with a push token and no connection gets one pushtotalk wake per burst through APNs, every header right"
    )
    func wakeThroughAPNs() async throws {
        try await Self.withSetUp(tokenBytes: 100) { setup in  // tokens are variable length
            #expect(try await member(setup.server, "deck", user: "bob").wakeRoute == .apns)
            try await setup.takeFloor()
            let requests = try await setup.double.waitForRequests(count: 1, timeout: .seconds(10))
            let request = requests[0]
            #expect(request.problems.isEmpty, "\(request.problems)")
            #expect(request.path == "/3/device/\(setup.bobToken)")
            #expect(request.payload?.activeSpeaker == "Ann")
            #expect(request.payload?.burst?.count == 16)
            try await setup.releaseFloor()
            try await setup.takeFloor()
            let both = try await setup.double.waitForRequests(count: 2, timeout: .seconds(10))
            #expect(both[1].problems.isEmpty, "\(both[1].problems)")
            #expect(both[1].payload?.burst != request.payload?.burst)
            // One provider token shared by both requests.
            #expect(both[0].header("authorization") != nil)
            #expect(both[0].header("authorization") == both[1].header("authorization"))
            let totals = try await setup.totals { wakeCount($0, .wake, .apns, .sent) == 2 }
            #expect(totals.apnsConfigured)
            #expect(totals.apnsTokenAgeSeconds != nil)
            #expect(try await member(setup.server, "deck", user: "bob").lastWake?.transport == .apns)
        }
    }

    @Test(
        "410 Unregistered and 400 BadDeviceToken remove the token from its membership",
        arguments: [(410, "Unregistered"), (400, "BadDeviceToken")])
    func deadToken(status: Int, reason: String) async throws {
        try await Self.withSetUp { setup in
            setup.double.respond(toToken: setup.bobToken, status: status, reason: reason)
            try await setup.takeFloor()
            _ = try await setup.double.waitForRequests(count: 1, timeout: .seconds(10))
            _ = try await setup.totals { wakeCount($0, .wake, .apns, .rejected, reason) == 1 }
            let bob = try await member(setup.server, "deck", user: "bob")
            #expect(bob.pushToken == false)
            #expect(bob.wakeRoute == .unreachable)
            #expect(bob.lastWake?.outcome == .rejected)
            #expect(bob.lastWake?.reason == reason)
            // The next burst has no route for bob: nothing more goes to APNs.
            try await setup.releaseFloor()
            try await setup.takeFloor()
            _ = try await setup.totals { wakeCount($0, .wake, .unreachable, .expired, "no-route") == 1 }
            #expect(setup.double.requests().count == 1)
        }
    }

    @Test(
        "429 and 503 back APNs off: the next wake within the back-off expires instead of being sent",
        arguments: [(429, "TooManyRequests"), (503, "ServiceUnavailable")])
    func backOff(status: Int, reason: String) async throws {
        try await Self.withSetUp { setup in
            setup.double.respond(toToken: setup.bobToken, status: status, reason: reason)
            try await setup.takeFloor()
            _ = try await setup.double.waitForRequests(count: 1, timeout: .seconds(10))
            let first = try await setup.totals { wakeCount($0, .wake, .apns, .rejected, reason) == 1 }
            #expect(first.apnsBackoffUntil != nil)
            // The token is kept.
            #expect(try await member(setup.server, "deck", user: "bob").pushToken)
            try await setup.releaseFloor()
            try await setup.takeFloor()
            _ = try await setup.totals { wakeCount($0, .wake, .apns, .expired, "backoff") == 1 }
            #expect(setup.double.requests().count == 1)
        }
    }

    @Test("an unreachable APNs server: the wake fails, is counted as such, and APNs is backed off")
    func unreachable() async throws {
        try await Self.withSetUp(doubleStopped: true) { setup in
            try await setup.takeFloor()
            let totals = try await setup.totals { wakeCount($0, .wake, .apns, .failed, "connection-refused") == 1 }
            #expect(totals.apnsBackoffUntil != nil)
            #expect(try await member(setup.server, "deck", user: "bob").pushToken)
        }
    }

    @Test("a live Local Push connection is preferred to APNs")
    func localPushFirst() async throws {
        try await Self.withSetUp { setup in
            // Carol has a push token too, and her Local Push extension is connected.
            let carolSecret = try await setup.server.addUser("carol")
            let carol = try await setup.server.connect(
                "carol", secret: carolSecret, device: "carol-phone", role: .pushProvider)
            _ = try await carol.join("deck", name: "Carol", pushToken: "00ff00ff")
            #expect(try await member(setup.server, "deck", user: "carol").wakeRoute == .localPush)
            try await setup.takeFloor()
            guard case .push(let wake) = try await carol.next("push") else { throw TestFailure("not a push") }
            #expect(wake.payload.activeSpeaker == "Ann")
            // bob (token only) through APNs; carol (token and Local Push) only over Local Push.
            let requests = try await setup.double.waitForRequests(count: 1, timeout: .seconds(10))
            _ = try await setup.totals {
                wakeCount($0, .wake, .localPush, .sent) == 1 && wakeCount($0, .wake, .apns, .sent) == 1
            }
            #expect(requests.allSatisfy { $0.deviceToken == setup.bobToken })
            await carol.close()
        }
    }
}
