import Foundation
import PTTKit
import PTTProtocol
import ServerTestSupport
import TestSupport
import Testing

@testable import PTTServer

/// PTTKit's high-level client against a real pttd: what an iPhone app would do, through the kit's public API only.
@Suite("PTTKit: the app's client against a real server")
struct KitClientTests {
    /// A kit client for a new user on `server`, with its events recorded.
    struct KitMember {
        let client: PTTClient
        let events: Recorder<PTTEvent>

        func next(_ what: String, where predicate: @escaping @Sendable (PTTEvent) -> Bool) async throws -> PTTEvent {
            try await events.next(timeout: TestTimeouts.eventWait.scaled, what: what, where: predicate)
        }
    }

    /// The kit's options with its connect timeout scaled for a test server (`TestTimeouts.scale`).
    static var options: PTTClient.Options {
        var options = PTTClient.Options()
        options.connectTimeout = Duration.seconds(3).scaled
        return options
    }

    static func member(
        _ name: String, on server: TestServer, secret: String? = nil, device: String? = nil,
        endpoint: ServerEndpoint? = nil, options: PTTClient.Options = PTTClient.Options()
    ) async throws -> KitMember {
        var secret = secret
        if secret == nil { secret = try await server.addUser(name) }
        // The kit's 3 s connect timeout is an app's; a test server under a sanitizer answers 4× slower (a fresh
        // clone's ThreadSanitizer pass once timed out waiting for `welcome` after a restart).
        var options = options
        options.connectTimeout = max(options.connectTimeout, Self.options.connectTimeout)
        let client = try await PTTClient.connect(
            to: endpoint ?? server.endpoint,
            credentials: PTTCredentials(user: name, secret: secret ?? "", device: device ?? "\(name)-phone"),
            security: .plaintext, options: options)
        let events = Recorder<PTTEvent>()
        Task { await events.consume(client.events) }
        return KitMember(client: client, events: events)
    }

    /// Waits (bounded) until the relay has heard every one of `count` members of `channel` (or only `users`).
    static func waitAudioReachable(
        _ server: TestServer, channel: String, count: Int, users: Set<String>? = nil
    ) async throws {
        try await eventually("the relay hears the members of \(channel)", timeout: .seconds(10).scaled) {
            let detail: ChannelDetail = try await server.admin.get("/api/channels/\(channel)")
            let heard = detail.members.filter { users?.contains($0.user) ?? true }
            return detail.members.count == count && heard.allSatisfy(\.audioReachable)
        }
    }

    /// `count` distinct, structurally valid Opus packets (20 ms CELT frames, code 0).
    static func packets(_ count: Int, tag: UInt8 = 0) -> [[UInt8]] {
        (0..<count).map {
            [0xF8, tag, UInt8(truncatingIfNeeded: $0), UInt8(truncatingIfNeeded: $0 >> 8)]
                + [UInt8](repeating: 0x55, count: 40)
        }
    }

    /// What `body` returns, or a failure naming `what` after `timeout` (scaled).
    static func within<T: Sendable>(
        _ timeout: Duration, _ what: String, _ body: @escaping @Sendable () async throws -> T?
    ) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(for: timeout.scaled)
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            guard let value = first else { throw TestFailure("no \(what) within \(timeout)") }
            return value
        }
    }

    /// Collects `count` audio packets from `handle`'s play-out (bounded).
    static func hear(
        _ count: Int, from handle: ChannelHandle, timeout: Duration = .seconds(15)
    ) async throws
        -> [PlayoutPacket]
    {
        try await within(timeout, "\(count) packets heard") {
            var heard: [PlayoutPacket] = []
            for await item in handle.audio {
                if case .audio(let packet) = item { heard.append(packet) }
                if heard.count == count { return heard }
            }
            return nil
        }
    }

    @Test("talk and listen through the kit: the listener hears every packet in order, marked with its speaker")
    func talkAndListen() async throws {
        try await withTestServer { server in
            let ann = try await Self.member("ann", on: server)
            let bob = try await Self.member("bob", on: server)
            let annDeck = try await ann.client.join("deck")
            let bobDeck = try await bob.client.join("deck")
            try await Self.waitAudioReachable(server, channel: "deck", count: 2)

            #expect(try await annDeck.requestFloor() == .granted(talkTime: .seconds(30)))
            let taken = try await bob.next("floor taken by ann") {
                if case .floorTaken(_, let speaker) = $0 { speaker.user == "ann" } else { false }
            }
            guard case .floorTaken(let channel, _) = taken else { return }
            #expect(channel.name == "deck")

            let sent = Self.packets(50)
            async let heard = Self.hear(sent.count, from: bobDeck)
            // Handed over all at once, as a file would: the kit paces them at 20 ms each.
            let start = ContinuousClock.now
            for packet in sent { try annDeck.send(opus: packet) }
            try await annDeck.releaseFloor()
            let packets = try await heard
            let took = ContinuousClock.now - start
            #expect(packets.map(\.opus) == sent)
            #expect(packets.first?.startsSpurt == true)
            #expect(packets.dropFirst().allSatisfy { !$0.startsSpurt })
            #expect(packets.allSatisfy { $0.speaker?.user == "ann" })
            #expect(packets.allSatisfy { $0.speakerSSRC == annDeck.ssrc })
            let timestamps = zip(packets, packets.dropFirst()).map { $1.timestamp &- $0.timestamp }
            #expect(timestamps.allSatisfy { $0 == 960 }, "one 20 ms packet after another: \(timestamps)")
            #expect(took >= .milliseconds(900), "50 packets of 20 ms are paced over about a second, not sent at once")
            _ = try await bob.next("floor idle") { if case .floorIdle = $0 { true } else { false } }
            await ann.client.close()
            await bob.client.close()
        }
    }

    @Test(
        "floor outcomes are typed: queued with a position, then granted when the holder releases; denied for a listener"
    )
    func floorOutcomes() async throws {
        try await withTestServer { server in
            let ann = try await Self.member("ann", on: server)
            let bob = try await Self.member("bob", on: server)
            let cat = try await Self.member("cat", on: server)
            let annDeck = try await ann.client.join("deck")
            let bobDeck = try await bob.client.join("deck")
            let catDeck = try await cat.client.join("deck", receiveOnly: true)

            guard case .granted = try await annDeck.requestFloor() else { throw TestFailure("ann not granted") }
            #expect(try await bobDeck.requestFloor() == .queued(position: 1))
            #expect(try await catDeck.requestFloor() == .denied(cause: .receiveOnly))
            try await annDeck.releaseFloor()
            let granted = try await bob.next("bob's turn") { if case .floorGranted = $0 { true } else { false } }
            guard case .floorGranted(let channel, let talkTime) = granted else { return }
            #expect(channel.name == "deck")
            #expect(talkTime == .seconds(30))
            for member in [ann, bob, cat] { await member.client.close() }
        }
    }

    @Test("wrong credentials fail the first connect with the server's reason, and nothing reconnects")
    func wrongCredentials() async throws {
        try await withTestServer { server in
            try await server.addUser("ann")
            let error = await #expect(throws: PTTClientError.self) {
                _ = try await Self.member("ann", on: server, secret: "not-the-secret")
            }
            #expect(error == .refused(code: .badCredentials, message: "unknown user or wrong secret"))
        }
    }

    @Test(
        "a server restart is survived: the client reconnects, re-attaches the membership on the same SSRC, and audio flows again"
    )
    func serverRestart() async throws {
        let data = TestServer.temporaryDirectory()
        var options = PTTClient.Options()
        options.backoff = ReconnectBackoff(initial: .milliseconds(50), maximum: .milliseconds(200))
        let first = try await TestServer.start(data: data) { $0.heartbeatInterval = Duration.seconds(2).scaled }
        let port = first.endpoint.port
        let annSecret = try await first.addUser("ann")
        let bobSecret = try await first.addUser("bob")
        let ann = try await Self.member("ann", on: first, secret: annSecret, options: options)
        let bob = try await Self.member("bob", on: first, secret: bobSecret, options: options)
        let annDeck = try await ann.client.join("deck")
        let bobDeck = try await bob.client.join("deck")
        let ssrcBefore = annDeck.ssrc
        try await bob.client.scan(["deck"])  // the kit sends it again to the restarted server
        await first.stop()
        _ = try await ann.next("connecting after the server went away") { $0 == .connectionState(.connecting) }

        // The same data and control port (the one the first server was given); the media port is new.
        let second = try await TestServer.start(data: data) {
            $0.heartbeatInterval = Duration.seconds(2).scaled
            $0.controlPort = port
        }
        do {
            for member in [ann, bob] {
                _ = try await member.next("re-attached") { if case .reattached = $0 { true } else { false } }
                _ = try await member.next("ready again") { $0 == .connectionState(.ready) }
            }
            #expect(annDeck.ssrc == ssrcBefore)
            try await eventually("bob's scan list set again") {
                try await PTTServerTests.member(second, "deck", user: "bob").scanRank == 1
            }
            #expect(await ann.client.reconnects == 1)
            try await Self.waitAudioReachable(second, channel: "deck", count: 2)
            guard case .granted = try await annDeck.requestFloor() else { throw TestFailure("ann not granted") }
            let sent = Self.packets(10, tag: 7)
            async let heard = Self.hear(sent.count, from: bobDeck)
            for packet in sent { try annDeck.send(opus: packet) }
            #expect(try await heard.map(\.opus) == sent)
            try await annDeck.releaseFloor()
        } catch {
            await second.stop()
            throw error
        }
        await ann.client.close()
        await bob.client.close()
        await second.stop()
    }

    @Test(
        "a suspended member's Local Push session gets the wake as a PushToTalkWake; the app then connects and hears the burst from its first packet"
    )
    func wakeThenCatchUp() async throws {
        // Bob's earlier run sent keep-alives under the membership's key; he stops being reachable by audio a
        // second after it ends, so the burst wakes him.
        try await withTestServer(configure: { $0.mediaSilenceTimeout = .seconds(1) }) { server in
            let ann = try await Self.member("ann", on: server)
            let bobSecret = try await server.addUser("bob")
            let credentials = PTTCredentials(user: "bob", secret: bobSecret, device: "bob-phone")
            // Bob's app joined and listened earlier: its media went out under the membership's first key. It is
            // suspended now; only his extension is connected.
            let bobEarlier = try await PTTClient.connect(
                to: server.endpoint, credentials: credentials, security: .plaintext, options: Self.options)
            let earlierKey = try await bobEarlier.join("deck").membership.media.key
            try await Self.waitAudioReachable(server, channel: "deck", count: 1)
            await bobEarlier.close()
            let provider = try await PushProviderSession.start(
                to: server.endpoint, credentials: credentials, security: .plaintext)
            let annDeck = try await ann.client.join("deck")
            try await Self.waitAudioReachable(server, channel: "deck", count: 2, users: ["ann"])
            try await eventually("bob no longer reachable by audio") {
                let detail: ChannelDetail = try await server.admin.get("/api/channels/deck")
                return detail.members.first { $0.user == "bob" }?.audioReachable == false
            }
            try await eventually("bob's wake route is local push") {
                let detail: ChannelDetail = try await server.admin.get("/api/channels/deck")
                return detail.members.first { $0.user == "bob" }?.wakeRoute == .localPush
            }

            guard case .granted = try await annDeck.requestFloor() else { throw TestFailure("ann not granted") }
            let sent = Self.packets(25, tag: 3)
            for packet in sent { try annDeck.send(opus: packet) }
            let wake = try await Self.within(.seconds(10), "the wake") {
                var wakes = provider.wakes.makeAsyncIterator()
                return await wakes.next()
            }
            let woken = ContinuousClock.now
            #expect(wake.action == .activeRemoteParticipant(name: "ann"))
            #expect(wake.channel == annDeck.id)
            #expect(wake.expiration == 0)
            #expect(wake.burst?.count == 16)
            #expect(!wake.isStale())
            #expect(wake.userInfo["activeSpeaker"] as? String == "ann")

            // The "app" wakes up: connects, finds its membership in welcome, and plays the burst from the start.
            let app = try await PTTClient.connect(
                to: server.endpoint, credentials: credentials, security: .plaintext, options: Self.options)
            let membership = try #require(await app.memberships.first { $0.channel.id == wake.channel })
            let deck = try await app.attach(membership)
            // Attaching refreshed the membership's keys: the earlier run's packet indices are unknown here, and sending
            // under its key again would reuse keystream (and the relay would drop the keep-alives as replays).
            #expect(deck.membership.media.key != earlierKey)
            #expect(deck.ssrc == membership.media.ssrc)
            let heard: [PlayoutPacket]
            do { heard = try await Self.hear(sent.count, from: deck) } catch {
                // What the relay did instead: its drops and catch-up counters, and what the kit's listener saw.
                let metrics = try await server.admin.getText("/metrics").split(separator: "\n").filter {
                    !$0.hasPrefix("#") && !$0.hasSuffix(" 0") && ($0.contains("dropped") || $0.contains("catch_up"))
                }
                print("wake then catch-up, not heard: \(metrics), \(deck.listeningStatistics)")
                throw error
            }
            print("PTTKit wake to last of 25 packets (catch-up, plain TCP): \(ContinuousClock.now - woken)")
            #expect(heard.map(\.opus) == sent)
            #expect(heard.first?.speaker?.user == "ann")
            try await annDeck.releaseFloor()
            #expect(await provider.checkHealth())
            await provider.stop()
            #expect(await provider.state == .closed(reason: "stopped by the extension"))
            await app.close()
            await ann.client.close()
        }
    }
}
