import Foundation
import RTP
import PTTClient
import PTTCore
import PTTProtocol
import PTTServer
import TestSupport
import Testing

/// The `push` frames among a peer's unread messages.
func pushes(_ messages: [ControlMessage]) -> [PushFrame] {
    messages.compactMap { if case .push(let frame) = $0 { frame } else { nil } }
}

/// The count of one (kind, transport, outcome, reason) row of `GET /api/wakes`, 0 if absent.
func wakeCount(_ totals: WakeTotals, _ kind: String, _ transport: String, _ outcome: String, _ reason: String = "") -> Int {
    totals.counts.first { $0.kind == kind && $0.transport == transport && $0.outcome == outcome && $0.reason == reason }?.count ?? 0
}

func member(_ server: TestServer, _ channel: String, user: String) async throws -> MemberStatus {
    let detail: ChannelDetail = try await server.admin.get("/api/channels/\(channel)")
    return try require_(detail.members.first { $0.user == user }, "member \(user)")
}

@Suite("Wakes over Local Push connections on loopback")
struct WakeTests {
    /// A floor that stays taken without media, so a test controls when the burst ends.
    static func quietFloor(_ c: inout ServerConfiguration) { c.floor.endOfMediaTimeout = .seconds(60) }

    @Test("a member with only a push-provider connection gets exactly one wake per talk burst, none per packet")
    func oneWakePerBurst() async throws {
        // Explicit floor requests only: audio the relay reads after the release (a relay lagging behind, as
        // under a sanitizer) would otherwise be an implicit request on the idle floor, so a second burst.
        let server = try await TestServer.start { $0.implicitFloorRequest = false }
        defer { Task { await server.stop() } }
        let ann = try await RelayTests.crew(server, ["ann"])[0]
        let bobSecret = try await server.addUser("bob")
        let bob = try await server.connect("bob", secret: bobSecret, device: "bob-phone", role: .pushProvider)
        let bobJoined = try await bob.join("deck", name: "Bob")
        #expect(try await member(server, "deck", user: "bob").wakeRoute == "local-push")

        // A talk burst of 25 packets: explicit request, audio, release.
        let packets = try tonePackets(25)
        guard case .floorGranted = try await ann.peer.request(.floorRequest(FloorCommand(channel: "deck"))) else {
            throw TestFailure("floor not granted")
        }
        let sendStart = Date()
        try await RelayTests().burst(ann, packets)
        _ = try await ann.peer.request(.floorRelease(FloorCommand(channel: "deck")))
        _ = try await ann.peer.next("floor-idle")
        try await bob.barrier()

        guard case .push(let wake) = try await bob.next("push") else { throw TestFailure("not a push") }
        let later = pushes(await bob.pending())
        try #require(later.isEmpty, "expected one wake, got \(later.count + 1)")
        #expect(wake.pushType == "pushtotalk")
        #expect(wake.priority == 10)
        #expect(wake.expiration == 0)
        #expect(wake.payload.aps == APS())
        #expect(wake.payload.channel == bobJoined.channel.id)
        #expect(wake.payload.activeSpeaker == "ann")
        let burst = try #require(wake.payload.burst)
        #expect(burst.count == 16)
        let sent = Date(timeIntervalSince1970: Double(wake.payload.sentAt) / 1000)
        #expect(abs(sent.timeIntervalSince(sendStart)) < 5 * TestTimeouts.scale)

        // A second burst is a second wake, with another burst id.
        guard case .floorGranted = try await ann.peer.request(.floorRequest(FloorCommand(channel: "deck"))) else {
            throw TestFailure("floor not granted again")
        }
        let second = try await bob.next("push")
        guard case .push(let again) = second else { throw TestFailure("not a push") }
        #expect(again.payload.burst != burst)
        _ = try await ann.peer.request(.floorRelease(FloorCommand(channel: "deck")))
        _ = try await ann.peer.next("floor-idle")
        try await bob.barrier()
        #expect(pushes(await bob.pending()).isEmpty)

        let totals: WakeTotals = try await server.admin.get("/api/wakes")
        #expect(wakeCount(totals, "wake", "local-push", "sent") == 2)
        #expect(totals.counts.allSatisfy { $0.outcome == "sent" })
        let status = try await member(server, "deck", user: "bob")
        #expect(status.lastWake?.outcome == "sent")
        #expect(status.lastWake?.transport == "local-push")
        #expect(status.lastWake?.burst == again.payload.burst)
        // The speaker, reachable by audio, is never woken.
        #expect(try await member(server, "deck", user: "ann").lastWake == nil)
        await ann.media.close()
    }

    @Test("a member that is not connected is not woken later: the wake expires at once and stays expired")
    func zeroExpiry() async throws {
        let server = try await TestServer.start(WakeTests.quietFloor)
        defer { Task { await server.stop() } }
        let annSecret = try await server.addUser("ann")
        let bobSecret = try await server.addUser("bob")
        let ann = try await server.connect("ann", secret: annSecret)
        _ = try await ann.join("deck")
        let bobFirst = try await server.connect("bob", secret: bobSecret, device: "bob-phone", role: .pushProvider)
        _ = try await bobFirst.join("deck")
        await bobFirst.close()
        // Wait until the server has seen the close (the member shows no connection).
        let deadline = ContinuousClock.now + .seconds(10).scaled
        while try await !member(server, "deck", user: "bob").connections.isEmpty {
            guard ContinuousClock.now < deadline else { throw TestFailure("bob's connection never closed") }
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(try await member(server, "deck", user: "bob").wakeRoute == "none")

        guard case .floorGranted = try await ann.request(.floorRequest(FloorCommand(channel: "deck"))) else {
            throw TestFailure("floor not granted")
        }
        // The decision is made with the grant: it is counted by the time the grant is answered.
        let totals: WakeTotals = try await server.admin.get("/api/wakes")
        #expect(wakeCount(totals, "wake", "none", "expired", "no-route") == 1)
        #expect(totals.pending == 0)

        // Bob's Local Push extension reconnects while the burst still runs: nothing is delivered late.
        let bobAgain = try await server.connect("bob", secret: bobSecret, device: "bob-phone", role: .pushProvider)
        try await bobAgain.barrier()
        #expect(pushes(await bobAgain.pending()).isEmpty)
        let status = try await member(server, "deck", user: "bob")
        #expect(status.lastWake?.outcome == "expired")
        #expect(status.lastWake?.reason == "no-route")
        #expect(status.wakeRoute == "local-push")
        await ann.close()
        await bobAgain.close()
    }

    @Test("a kicked member without its app connected gets a leaveChannel push on its Local Push connection")
    func leaveOnKick() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let bobSecret = try await server.addUser("bob")
        let bob = try await server.connect("bob", secret: bobSecret, device: "bob-phone", role: .pushProvider)
        let joined = try await bob.join("deck")
        let carolSecret = try await server.addUser("carol")
        let carol = try await server.connect("carol", secret: carolSecret)
        _ = try await carol.join("deck")
        await carol.close()

        try await server.admin.perform(.DELETE, "/api/channels/deck/members/bob")
        let message = try await bob.next("push")
        guard case .push(let leave) = message else { throw TestFailure("not a push") }
        #expect(leave.pushType == "pushtotalk")
        #expect(leave.priority == 10)
        #expect(leave.expiration == 0)
        #expect(leave.payload.leaveChannel == true)
        #expect(leave.payload.reason == "kicked")
        #expect(leave.payload.channel == joined.channel.id)

        // Carol has no connection and no token: her leave (channel deleted) expires, counted.
        try await server.admin.perform(.DELETE, "/api/channels/deck")
        let deadline = ContinuousClock.now + .seconds(10).scaled
        while true {
            let totals: WakeTotals = try await server.admin.get("/api/wakes")
            if wakeCount(totals, "leave", "local-push", "sent") == 1, wakeCount(totals, "leave", "none", "expired", "no-route") == 1 { break }
            guard ContinuousClock.now < deadline else { throw TestFailure("leave pushes not counted: \(totals.counts)") }
            try await Task.sleep(for: .milliseconds(10))
        }
        await bob.close()
    }
}

@Suite("Announcements: stored, delivered on reconnect until they expire")
struct AnnouncementTests {
    static func announce(_ server: TestServer, _ text: String, collapse: String? = nil, ttl: Int? = nil) async throws -> AnnounceResponse {
        try await server.admin.post("/api/channels/deck/announce", body: AnnounceRequest(text: text, collapseId: collapse, ttlSeconds: ttl))
    }

    @Test("an announcement reaches a member that reconnects within its expiry, and not one that reconnects after")
    func expiry() async throws {
        let clock = ManualWallClock()
        let server = try await TestServer.start(wallClock: clock)
        defer { Task { await server.stop() } }
        let annSecret = try await server.addUser("ann")
        let bobSecret = try await server.addUser("bob")
        for (user, secret) in [("ann", annSecret), ("bob", bobSecret)] {
            let peer = try await server.connect(user, secret: secret)
            _ = try await peer.join("deck")
            await peer.close()
        }
        let response = try await Self.announce(server, "Muster at station 5", ttl: 60)
        #expect(response.members == 2)
        #expect(response.replaced == 0)

        let ann = try await server.connect("ann", secret: annSecret)
        guard case .push(let frame) = try await ann.next("push") else { throw TestFailure("not a push") }
        #expect(frame.pushType == "alert")
        #expect(frame.priority == 5)
        #expect(frame.payload.announcement == "Muster at station 5")
        #expect(frame.payload.aps.alert?.body == "Muster at station 5")
        let expiresAt = Date(timeIntervalSince1970: TimeInterval(frame.expiration))
        #expect(abs(expiresAt.timeIntervalSince(clock.now()) - 60) < 5)
        ann.client.send(.pushAck(PushAck(id: frame.id)))
        try await ann.barrier()

        clock.advance(by: 61)
        let bob = try await server.connect("bob", secret: bobSecret)
        try await bob.barrier()
        #expect(pushes(await bob.pending()).isEmpty)

        // Acknowledged: not delivered again to ann either.
        await ann.close()
        let annAgain = try await server.connect("ann", secret: annSecret)
        try await annAgain.barrier()
        #expect(pushes(await annAgain.pending()).isEmpty)

        let totals: WakeTotals = try await server.admin.get("/api/wakes")
        #expect(wakeCount(totals, "announce", "local-push", "acknowledged") == 1)
        #expect(wakeCount(totals, "announce", "none", "expired", "ttl") == 1)
        #expect(totals.storedAnnouncements == 0)
        await bob.close()
        await annAgain.close()
    }

    @Test("stored announcements survive a restart; a newer one with the same collapse id replaces the older")
    func restartAndCollapse() async throws {
        let data = TestServer.temporaryDirectory()
        let first = try await TestServer.start(data: data)
        let secret = try await first.addUser("bob")
        let bob = try await first.connect("bob", secret: secret)
        _ = try await bob.join("deck")
        await bob.close()
        _ = try await Self.announce(first, "Muster at station 4", collapse: "muster")
        let replacing = try await Self.announce(first, "Muster at station 5", collapse: "muster")
        #expect(replacing.replaced == 1)
        _ = try await Self.announce(first, "Galley closes at 22:00")
        await first.stop()

        let second = try await TestServer.start(data: data)
        defer { Task { await second.stop() } }
        let bobAgain = try await second.connect("bob", secret: secret)
        let one = try await bobAgain.next("push")
        let two = try await bobAgain.next("push")
        try await bobAgain.barrier()
        let texts = [one, two].compactMap { if case .push(let f) = $0 { f.payload.announcement } else { nil } }
        #expect(texts == ["Muster at station 5", "Galley closes at 22:00"])
        #expect(pushes(await bobAgain.pending()).isEmpty)
        // Not acknowledged: delivered again on the next connection.
        await bobAgain.close()
        let third = try await second.connect("bob", secret: secret)
        _ = try await third.next("push")
        _ = try await third.next("push")
        await third.close()
    }

    @Test("bad announcements are refused with a clear error")
    func refused() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        _ = try await server.admin.post("/api/channels", body: CreateChannelRequest(name: "deck")) as ChannelSummary
        for (request, fragment) in [(AnnounceRequest(text: "  "), "text"), (AnnounceRequest(text: "x", ttlSeconds: 0), "ttlSeconds"),
                                    (AnnounceRequest(text: "x", ttlSeconds: 31 * 86_400), "ttlSeconds"),
                                    (AnnounceRequest(text: String(repeating: "é", count: 600)), "text"),
                                    (AnnounceRequest(text: "x", collapseId: String(repeating: "c", count: 65)), "collapseId")] {
            do {
                let _: AnnounceResponse = try await server.admin.post("/api/channels/deck/announce", body: request)
                Issue.record("accepted \(request)")
            } catch let error as AdminError {
                #expect(error.code == .badRequest)
                #expect(error.message.contains(fragment))
            }
        }
        do {
            let _: AnnounceResponse = try await server.admin.post("/api/channels/nowhere/announce", body: AnnounceRequest(text: "x"))
            Issue.record("accepted an unknown channel")
        } catch let error as AdminError {
            #expect(error.code == .notFound)
        }
    }
}
