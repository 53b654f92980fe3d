import Foundation
import PTTKit
import PTTProtocol
import PTTServer
import ServerTestSupport
import TestSupport
import Testing

@Suite("Floor control over real control connections")
struct FloorOverNetworkTests {
    /// Three users in channel "deck": alice and bob at priority 0, carol at `carolPriority`.
    struct Crew {
        let server: TestServer
        let alice: Peer, bob: Peer, carol: Peer
        let ids: [String: String]

        /// Runs `body` with the crew on a new server (`configure`d); the server's shutdown is awaited after it.
        @discardableResult
        static func with<T>(
            carolPriority: Int = 0, carolReceiveOnly: Bool = false,
            configure: (inout ServerConfiguration) -> Void = { _ in },
            _ body: (Crew) async throws -> T
        ) async throws -> T {
            try await withTestServer(configure: configure) { server in
                let a = try await server.addUser("alice")
                let b = try await server.addUser("bob")
                let c = try await server.addUser("carol", priority: carolPriority, receiveOnly: carolReceiveOnly)
                let alice = try await server.connect("alice", secret: a)
                let bob = try await server.connect("bob", secret: b)
                let carol = try await server.connect("carol", secret: c)
                var ids: [String: String] = [:]
                ids["alice"] = try await alice.join("deck").member.id
                ids["bob"] = try await bob.join("deck").member.id
                ids["carol"] = try await carol.join("deck").member.id
                return try await body(Crew(server: server, alice: alice, bob: bob, carol: carol, ids: ids))
            }
        }
    }

    @Test("a request on an idle floor is granted and every member hears floor-taken")
    func grant() async throws {
        try await Crew.with { crew in
            let reply = try await crew.alice.request(.floorRequest(FloorCommand(channel: "deck")))
            guard case .floorGranted(let granted) = reply else {
                throw TestFailure("expected floor-granted, got \(reply.type)")
            }
            #expect(granted.talkTimeMs == 30_000)
            for peer in [crew.alice, crew.bob, crew.carol] {
                let taken = try await peer.next("floor-taken")
                guard case .floorTaken(let t) = taken else { continue }
                #expect(t.member.id == crew.ids["alice"])
            }
            let summary: [ChannelSummary] = try await crew.server.admin.get("/api/channels")
            #expect(summary.first?.floor == .taken)
            #expect(summary.first?.speaker == "alice")
        }
    }

    @Test("a receive-only member is denied")
    func receiveOnlyDenied() async throws {
        try await Crew.with(carolReceiveOnly: true) { crew in
            let reply = try await crew.carol.request(.floorRequest(FloorCommand(channel: "deck")))
            guard case .floorDenied(let denied) = reply else {
                throw TestFailure("expected floor-denied, got \(reply.type)")
            }
            #expect(denied.cause == .receiveOnly)
            let metrics = try await crew.server.admin.getText("/metrics")
            #expect(metrics.contains(#"ptt_floor_denies_total{cause="receive-only"} 1"#))
        }
    }

    @Test("requests while taken queue in order, release hands the floor to the head, positions move up")
    func queueAndHandOff() async throws {
        try await Crew.with { crew in
            _ = try await crew.alice.request(.floorRequest(FloorCommand(channel: "deck")))
            let bobReply = try await crew.bob.request(.floorRequest(FloorCommand(channel: "deck")))
            guard case .floorQueued(let bq) = bobReply else {
                throw TestFailure("expected floor-queued, got \(bobReply.type)")
            }
            #expect(bq.position == 1)
            let carolReply = try await crew.carol.request(.floorRequest(FloorCommand(channel: "deck")))
            guard case .floorQueued(let cq) = carolReply else {
                throw TestFailure("expected floor-queued, got \(carolReply.type)")
            }
            #expect(cq.position == 2)

            let detail: ChannelDetail = try await crew.server.admin.get("/api/channels/deck")
            #expect(detail.queue.map(\.name) == ["bob", "carol"])
            #expect(detail.speaker?.name == "alice")

            crew.alice.client.send(.floorRelease(FloorCommand(channel: "deck")))
            let granted = try await crew.bob.next("floor-granted")
            guard case .floorGranted = granted else { throw TestFailure("bob was not granted") }
            let takenByBob: @Sendable (ControlMessage) -> Bool = {
                if case .floorTaken(let t) = $0 { t.member.user == "bob" } else { false }
            }
            _ = try await crew.alice.next("floor-taken by bob", where: takenByBob)
            _ = try await crew.carol.next("floor-taken by bob", where: takenByBob)
            let moved = try await crew.carol.next("floor-queued")
            guard case .floorQueued(let position) = moved else { throw TestFailure("expected floor-queued") }
            #expect(position.position == 1)

            crew.bob.client.send(.floorRelease(FloorCommand(channel: "deck")))
            _ = try await crew.carol.next("floor-granted")
            crew.carol.client.send(.floorRelease(FloorCommand(channel: "deck")))
            _ = try await crew.alice.next("floor-idle")
        }
    }

    @Test("a strictly higher priority pre-empts the holder after the grace time")
    func preemption() async throws {
        try await Crew.with(carolPriority: 5, configure: { $0.floor.preemptionGrace = .milliseconds(200) }) { crew in
            _ = try await crew.alice.request(.floorRequest(FloorCommand(channel: "deck")))
            let reply = try await crew.carol.request(.floorRequest(FloorCommand(channel: "deck")))
            guard case .floorQueued(let q) = reply else {
                throw TestFailure("expected floor-queued, got \(reply.type)")
            }
            #expect(q.position == 1)
            let pending = try await crew.alice.next("floor-revoke-pending")
            guard case .floorRevokePending(let p) = pending else { throw TestFailure("expected floor-revoke-pending") }
            #expect(p.by.user == "carol")
            #expect(p.graceMs == 200)
            let revoked = try await crew.alice.next("floor-revoked")
            guard case .floorRevoked(let r) = revoked else { throw TestFailure("expected floor-revoked") }
            #expect(r.cause == .preempted)
            _ = try await crew.carol.next("floor-granted")
            _ = try await crew.bob.next("floor-taken by carol") {
                if case .floorTaken(let t) = $0 { t.member.user == "carol" } else { false }
            }
        }
    }

    @Test("a holder that sends no media loses the floor after T1, and everyone hears idle")
    func endOfMediaTimeout() async throws {
        try await Crew.with(configure: { $0.floor.endOfMediaTimeout = .milliseconds(300) }) { crew in
            _ = try await crew.alice.request(.floorRequest(FloorCommand(channel: "deck")))
            let revoked = try await crew.alice.next("floor-revoked")
            guard case .floorRevoked(let r) = revoked else { throw TestFailure("expected floor-revoked") }
            #expect(r.cause == .endOfMedia)
            _ = try await crew.bob.next("floor-idle")
            let metrics = try await crew.server.admin.getText("/metrics")
            #expect(metrics.contains(#"ptt_floor_revokes_total{cause="end-of-media"} 1"#))
        }
    }

    @Test("an operator revoke takes the floor away and hands it on")
    func operatorRevoke() async throws {
        try await Crew.with { crew in
            _ = try await crew.alice.request(.floorRequest(FloorCommand(channel: "deck")))
            _ = try await crew.bob.request(.floorRequest(FloorCommand(channel: "deck")))
            try await crew.server.admin.perform(.POST, "/api/channels/deck/revoke")
            let revoked = try await crew.alice.next("floor-revoked")
            guard case .floorRevoked(let r) = revoked else { throw TestFailure("expected floor-revoked") }
            #expect(r.cause == .revokedByOperator)
            _ = try await crew.bob.next("floor-granted")
        }
    }

    @Test("a kicked holder loses the floor, hears left(kicked), and the queue moves on")
    func kickHolder() async throws {
        try await Crew.with { crew in
            _ = try await crew.alice.request(.floorRequest(FloorCommand(channel: "deck")))
            _ = try await crew.bob.request(.floorRequest(FloorCommand(channel: "deck")))
            try await crew.server.admin.perform(.DELETE, "/api/channels/deck/members/alice")
            let left = try await crew.alice.next("left")
            guard case .left(let l) = left else { throw TestFailure("expected left") }
            #expect(l.reason == .kicked)
            _ = try await crew.bob.next("floor-granted")
            _ = try await crew.carol.next("member-left")
        }
    }
}
