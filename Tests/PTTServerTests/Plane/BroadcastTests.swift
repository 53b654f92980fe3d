import Foundation
import PTTAdmin
import PTTCore
import PTTKit
import PTTProtocol
import ServerTestSupport
import TestSupport
import Testing

@testable import PTTServer

/// Broadcasts over loopback (Docs/PROTOCOL.md 5.42–5.44, 7.9): one sender talks to several channels at once; every
/// member of each hears it once, on its usual stream; nobody else takes a floor there until it ends.
@Suite("Broadcasts")
struct BroadcastTests {
    /// `user`'s device joined to `channels`, each membership's media open, once the relay hears each.
    static func member(_ server: TestServer, _ user: String, in channels: [String]) async throws -> [Talker] {
        let secret = try await server.addUser(user)
        let peer = try await server.connect(user, secret: secret)
        var talkers: [Talker] = []
        for channel in channels {
            let joined = try await peer.join(channel)
            talkers.append(
                Talker(
                    peer: peer, joined: joined,
                    media: try await MediaSession.open(host: "127.0.0.1", parameters: joined.media)))
        }
        for channel in channels {
            try await eventually("\(user) heard by the relay in \(channel)") {
                try await PTTServerTests.member(server, channel, user: user).audioReachable
            }
        }
        return talkers
    }

    /// Floors taken only by asking, and no T1 to end a burst the test pauses: a broadcast's and a scan's tests
    /// decide when bursts start and end.
    static func askedFloors(_ configuration: inout ServerConfiguration) {
        configuration.implicitFloorRequest = false
        configuration.floor.endOfMediaTimeout = .seconds(60)
    }

    /// Captain, in bridge, with the broadcast right.
    static func captain(_ server: TestServer) async throws -> Talker {
        let captain = try await member(server, "captain", in: ["bridge"])[0]
        _ =
            try await server.admin.put("/api/users/captain/rights", body: UserRightsRequest(rights: [.broadcast]))
            as UserStatus
        return captain
    }

    static func refusal(_ peer: Peer, _ request: BroadcastRequest) async throws -> ErrorFrame {
        do {
            let reply = try await peer.request(.broadcast(request))
            throw TestFailure("expected a refusal, got \(reply.type)")
        } catch ControlClientError.refused(let error) {
            return error
        }
    }

    @Test(
        "a broadcast reaches every member of its channels once on its usual stream (a member of two channels once, nobody outside), takes and locks their floors, is recorded in each, wakes marked broadcast, and ends with the sender's release"
    )
    func reachesEachMemberOnce() async throws {
        try await withTestServer(configure: Self.askedFloors) { server in
            let captain = try await Self.captain(server)
            let eve = try await Self.member(server, "eve", in: ["bridge"])[0]
            let ann = try await Self.member(server, "ann", in: ["deck"])[0]
            let bob = try await Self.member(server, "bob", in: ["deck", "engine"])
            let carl = try await Self.member(server, "carl", in: ["engine"])[0]
            let dora = try await Self.member(server, "dora", in: ["galley"])[0]
            // Fred: only a Local Push extension in engine, never any audio: woken, marked broadcast.
            let fredSecret = try await server.addUser("fred")
            let fred = try await server.connect("fred", secret: fredSecret, device: "fred-phone", role: .pushProvider)
            _ = try await fred.join("engine", name: "Fred")
            _ =
                try await server.admin.put("/api/channels/deck/recording", body: ChannelRecording(recording: true))
                as ChannelRecording

            // Ann holds deck's floor; the broadcast takes it.
            #expect(try await ann.peer.request(.floorRequest(FloorCommand(channel: "deck"))).type == "floor-granted")
            let reply = try await captain.peer.request(
                .broadcast(BroadcastRequest(channel: "bridge", to: ["deck", "engine"])))
            guard case .broadcastStarted(let started) = reply else { throw TestFailure("got \(reply.type)") }
            let info = started.broadcast
            #expect(info.channels == ["bridge", "deck", "engine"] && info.speaker.user == "captain")
            #expect(started.channel.name == "bridge")
            guard case .floorRevoked(let revoked) = try await ann.peer.next("floor-revoked") else { return }
            #expect(revoked.cause == .broadcast)
            for (peer, channel) in [(eve.peer, "bridge"), (ann.peer, "deck"), (carl.peer, "engine")] {
                guard case .broadcastStarted(let told) = try await peer.next("broadcast-started") else { return }
                #expect(told.broadcast == info && told.channel.name == channel && told.re == nil)
            }
            let denied = try await ann.peer.request(.floorRequest(FloorCommand(channel: "deck")))
            guard case .floorDenied(let denial) = denied else { throw TestFailure("got \(denied.type)") }
            #expect(denial.cause == .broadcast)
            guard case .push(let wake) = try await fred.next("push") else { return }
            #expect(wake.payload.kind == .broadcast && wake.payload.broadcast == info)
            #expect(wake.payload.activeSpeaker == "captain")

            let packets = try tonePackets(20)
            async let eveHeard = collect(eve.media, count: packets.count)
            async let annHeard = collect(ann.media, count: packets.count)
            async let bobDeckHeard = collect(bob[0].media, count: packets.count)
            async let bobEngineHeard = collect(bob[1].media, count: 1, timeout: .seconds(3))
            async let carlHeard = collect(carl.media, count: packets.count)
            async let doraHeard = collect(dora.media, count: 1, timeout: .seconds(3))
            try await ReplayTests.talk(captain, packets.map { (data: $0, samples: 960) })
            #expect(await eveHeard.map(\.payload) == packets, "the sender's own channel hears it")
            #expect(await annHeard.map(\.payload) == packets, "deck hears it")
            #expect(await carlHeard.map(\.payload) == packets, "engine hears it")
            #expect(await bobDeckHeard.map(\.payload) == packets, "bob hears it on deck, the first of his channels")
            #expect(await bobEngineHeard.isEmpty, "and not a second time on engine")
            #expect(await doraHeard.isEmpty, "galley is not in the broadcast")

            _ = try await captain.peer.request(.floorRelease(FloorCommand(channel: "bridge")))
            for peer in [captain.peer, eve.peer, ann.peer, carl.peer] {
                guard case .broadcastEnded(let ended) = try await peer.next("broadcast-ended") else { return }
                #expect(ended.broadcast == info && ended.reason == .released)
            }
            let history = try await RecordingTests.history(server, count: 1)
            #expect(history.first?.speaker == "captain" && history.first?.packets == packets.count)
            #expect(try await ann.peer.request(.floorRequest(FloorCommand(channel: "deck"))).type == "floor-granted")
            let metrics = try await server.admin.getText("/metrics")
            #expect(metricValue(metrics, "ptt_broadcasts_started_total") == 1)
            #expect(metricValue(metrics, "ptt_broadcasts") == 0)
            #expect(metricValue(metrics, "ptt_broadcasts_ended_total{reason=\"released\"}") == 1)
            for talker in [captain, eve, ann, carl, dora] + bob { await talker.media.close() }
        }
    }

    @Test(
        "a broadcast is refused without the right, with no channels, to a channel that is not there or is in emergency")
    func refused() async throws {
        try await withTestServer { server in
            let captain = try await Self.member(server, "captain", in: ["bridge"])[0]
            let ann = try await Self.member(server, "ann", in: ["deck"])[0]
            var error = try await Self.refusal(captain.peer, BroadcastRequest(channel: "bridge", to: ["deck"]))
            #expect(error.code == .notPermitted && error.message.contains("pttctl user rights captain broadcast"))
            _ =
                try await server.admin.put(
                    "/api/users/captain/rights", body: UserRightsRequest(rights: [.broadcast])) as UserStatus
            _ =
                try await server.admin.put("/api/users/ann/rights", body: UserRightsRequest(rights: [.emergency]))
                as UserStatus
            error = try await Self.refusal(captain.peer, BroadcastRequest(channel: "bridge"))
            #expect(error.code == .badRequest)
            error = try await Self.refusal(captain.peer, BroadcastRequest(channel: "bridge", to: ["deck", "hold"]))
            #expect(error.code == .noSuchChannel && error.message.contains("'hold'"))
            _ = try await EmergencyTests.declare(ann.peer)
            error = try await Self.refusal(captain.peer, BroadcastRequest(channel: "bridge", all: true))
            #expect(error.code == .channelBusy && error.message.contains("deck"))
            for talker in [captain, ann] { await talker.media.close() }
        }
    }

    @Test(
        "an operator lists a broadcast and ends it: the sender's floor is revoked, every member is told, the channels' floors are free"
    )
    func endedByOperator() async throws {
        try await withTestServer(configure: { $0.floor.endOfMediaTimeout = .seconds(60) }) { server in
            let captain = try await Self.member(server, "captain", in: ["bridge"])[0]
            _ =
                try await server.admin.put("/api/users/captain/rights", body: UserRightsRequest(rights: [.broadcast]))
                as UserStatus
            let ann = try await Self.member(server, "ann", in: ["deck"])[0]
            let reply = try await captain.peer.request(.broadcast(BroadcastRequest(channel: "bridge", all: true)))
            guard case .broadcastStarted(let started) = reply else { throw TestFailure("got \(reply.type)") }
            let listed: [BroadcastStatus] = try await server.admin.get("/api/broadcasts")
            #expect(listed.map(\.id) == [started.broadcast.id])
            #expect(listed.first?.channels == ["bridge", "deck"] && listed.first?.speaker == "captain")
            _ = try await ann.peer.next("broadcast-started")

            try await server.admin.perform(.DELETE, "/api/broadcasts/\(started.broadcast.id)")
            guard case .floorRevoked(let revoked) = try await captain.peer.next("floor-revoked") else { return }
            #expect(revoked.cause == .revokedByOperator)
            for peer in [captain.peer, ann.peer] {
                guard case .broadcastEnded(let ended) = try await peer.next("broadcast-ended") else { return }
                #expect(ended.reason == .endedByOperator)
            }
            let after: [BroadcastStatus] = try await server.admin.get("/api/broadcasts")
            #expect(after.isEmpty)
            #expect(try await ann.peer.request(.floorRequest(FloorCommand(channel: "deck"))).type == "floor-granted")
            do {
                try await server.admin.perform(.DELETE, "/api/broadcasts/\(started.broadcast.id)")
                Issue.record("a second end was accepted")
            } catch let error as AdminError {
                #expect(error.error == "not-found")
            }
            for talker in [captain, ann] { await talker.media.close() }
        }
    }

    @Test(
        "an emergency declared in a channel of a broadcast takes its floor at once and takes that channel out; the broadcast goes on elsewhere"
    )
    func anEmergencyTakesAChannelOut() async throws {
        try await withTestServer(configure: Self.askedFloors) { server in
            let captain = try await Self.captain(server)
            let ann = try await Self.member(server, "ann", in: ["deck"])[0]
            _ =
                try await server.admin.put("/api/users/ann/rights", body: UserRightsRequest(rights: [.emergency]))
                as UserStatus
            let bob = try await Self.member(server, "bob", in: ["deck"])[0]
            let carl = try await Self.member(server, "carl", in: ["engine"])[0]
            let reply = try await captain.peer.request(
                .broadcast(BroadcastRequest(channel: "bridge", to: ["deck", "engine"])))
            guard case .broadcastStarted = reply else { throw TestFailure("got \(reply.type)") }
            _ = try await bob.peer.next("broadcast-started")

            _ = try await EmergencyTests.declare(ann.peer)
            #expect(try await ann.peer.next("floor-granted").type == "floor-granted")
            guard case .broadcastEnded(let left) = try await bob.peer.next("broadcast-ended") else { return }
            #expect(left.reason == .preempted && left.channel.name == "deck")
            let listed: [BroadcastStatus] = try await server.admin.get("/api/broadcasts")
            #expect(listed.first?.channels == ["bridge", "engine"])

            // Deck hears ann's emergency, not the broadcast; engine still hears the captain.
            let packets = try tonePackets(10)
            async let bobHeard = collect(bob.media, count: 2 * packets.count, timeout: .seconds(3))
            async let carlHeard = collect(carl.media, count: packets.count)
            try await ReplayTests.talk(ann, packets.map { (data: $0, samples: 960) })
            try await ReplayTests.talk(captain, packets.map { (data: $0, samples: 960) }, startTimestamp: 0x2000_0000)
            let heardByBob = await bobHeard
            #expect(heardByBob.map(\.payload) == packets, "bob hears ann's packets, and none of the captain's")
            #expect(Set(heardByBob.map(\.speakerSSRC)) == [ann.ssrc], "all from ann")
            #expect(await carlHeard.map(\.payload) == packets, "engine still hears the broadcast")
            for talker in [captain, ann, bob, carl] { await talker.media.close() }
        }
    }
}
