import Foundation
import Opus
import PTTKit
import PTTProtocol
import PTTServer
import RTP
import SRTP
import ServerTestSupport
import TestSupport
import Testing

@Suite("The audio relay over real UDP on loopback")
struct RelayTests {
    /// Members of "deck" with open media; `suites[name]` is what that member offers at join.
    static func crew(_ server: TestServer, _ names: [String], suites: [String: [String]] = [:]) async throws -> [Talker]
    {
        var talkers: [Talker] = []
        for name in names {
            let secret = try await server.addUser(name)
            let peer = try await server.connect(name, secret: secret)
            let reply = try await peer.request(.join(Join(channel: "deck", srtpSuites: suites[name])))
            guard case .joined(let joined) = reply else { throw TestFailure("expected joined, got \(reply.type)") }
            let media = try await MediaSession.open(host: "127.0.0.1", parameters: joined.media)
            talkers.append(Talker(peer: peer, joined: joined, media: media))
        }
        // Wait (bounded) until the relay has heard every member's keep-alive.
        let deadline = ContinuousClock.now + .seconds(10).scaled
        var last: ChannelDetail?
        while ContinuousClock.now < deadline {
            let detail: ChannelDetail = try await server.admin.get("/api/channels/deck")
            if detail.members.count == names.count, detail.members.allSatisfy({ $0.audioReachable }) { return talkers }
            last = detail
            try await Task.sleep(for: .milliseconds(10))
        }
        // What the relay counted tells a lost keep-alive (nothing dropped) from a refused one (unknown SSRC,
        // authentication) or a report the plane ignored.
        let metrics = (try? await server.admin.getText("/metrics")) ?? ""
        let counters = metrics.split(separator: "\n").filter {
            !$0.hasPrefix("#")
                && ($0.contains("ptt_media_packets_dropped") || $0.contains("ptt_media_packets_received"))
        }
        let members = (last?.members ?? []).map { "\($0.user): \($0.audioReachable ? "heard" : "not heard")" }
        throw TestFailure(
            "the relay never heard every member: \(members.joined(separator: ", ")); "
                + counters.joined(separator: "; "))
    }

    func burst(_ speaker: Talker, _ packets: [[UInt8]], pace: Duration = .milliseconds(20)) async throws {
        var timestamp = UInt32.random(in: 0...UInt32.max)
        for (index, packet) in packets.enumerated() {
            try speaker.media.send(opus: packet, timestamp: timestamp, marker: index == 0)
            timestamp &+= 960
            try await Task.sleep(for: pace)
        }
    }

    @Test(
        "every listener gets exactly the holder's packets, in order, as one continuous stream",
        arguments: MediaSecurity.allCases)
    func relaysTheHolder(security: MediaSecurity) async throws {
        try await withTestServer(configure: { $0.mediaSecurity = security }) { server in
            let members = try await Self.crew(server, ["alice", "bob", "carol"])
            let (alice, bob, carol) = (members[0], members[1], members[2])
            #expect(alice.joined.media.security == security)
            let reply = try await alice.peer.request(.floorRequest(FloorCommand(channel: "deck")))
            #expect(reply.type == "floor-granted")
            try await bob.peer.barrier()
            try await carol.peer.barrier()

            let packets = try tonePackets(50)
            async let bobHeard = collect(bob.media, count: packets.count)
            async let carolHeard = collect(carol.media, count: packets.count)
            try await burst(alice, packets)
            for (listener, heard) in [(bob, await bobHeard), (carol, await carolHeard)] {
                #expect(
                    heard.map(\.payload) == packets,
                    "listener \(listener.peer.welcome.session) got \(heard.count) packets")
                guard heard.count == packets.count else { continue }
                #expect(heard.allSatisfy { $0.ssrc == listener.joined.media.listenSSRC })
                #expect(heard.allSatisfy { $0.speakerSSRC == alice.ssrc })
                #expect(heard[0].marker)
                #expect(heard.dropFirst().allSatisfy { !$0.marker })
                for (a, b) in zip(heard, heard.dropFirst()) {
                    #expect(b.sequenceNumber == a.sequenceNumber &+ 1)
                    #expect(b.timestamp == a.timestamp &+ 960)
                }
                // Forwarded as they came, not gathered and sent at once: alice paced them 20 ms apart, so they
                // arrive spread over about 49 × 20 ms. (No upper bound: a loaded machine slows alice's pacing
                // itself, and an upper bound once failed beside a build on the same two cores. How long the relay
                // takes per packet is pttbench's to measure.)
                let span = Double(heard.last!.arrival - heard.first!.arrival) / 1e6
                #expect(span > 49 * 20 * 0.8, "50 packets spanned \(span) ms")
            }
            let metrics = try await server.admin.getText("/metrics")
            #expect(metrics.contains("ptt_media_packets_forwarded_total 100"))
        }
    }

    @Test(
        "members with different SRTP suites hear each other: the relay decrypts with the speaker's, protects with each listener's"
    )
    func mixedSuites() async throws {
        try await withTestServer { server in
            let members = try await Self.crew(
                server, ["alice", "bob", "carol"],
                suites: ["alice": ["AEAD_AES_128_GCM"], "carol": ["AEAD_AES_128_GCM", "AES_CM_128_HMAC_SHA1_80"]])
            let (alice, bob, carol) = (members[0], members[1], members[2])
            #expect(
                [alice, bob, carol].map(\.joined.media.suite) == [
                    "AEAD_AES_128_GCM", "AES_CM_128_HMAC_SHA1_80", "AEAD_AES_128_GCM",
                ])
            for (speaker, listeners) in [(alice, [bob, carol]), (bob, [alice, carol])] {
                let reply = try await speaker.peer.request(.floorRequest(FloorCommand(channel: "deck")))
                #expect(reply.type == "floor-granted")
                for listener in listeners { try await listener.peer.barrier() }
                let packets = try tonePackets(20)
                async let first = collect(listeners[0].media, count: packets.count)
                async let second = collect(listeners[1].media, count: packets.count)
                try await burst(speaker, packets, pace: .milliseconds(5))
                #expect(await first.map(\.payload) == packets)
                #expect(await second.map(\.payload) == packets)
                _ = try await speaker.peer.request(.floorRelease(FloorCommand(channel: "deck")))
            }
            let metrics = try await server.admin.getText("/metrics")
            #expect(metricValue(metrics, #"ptt_media_packets_dropped_total{reason="authentication"}"#) == 0)
        }
    }

    @Test("frames from a member without the floor are dropped and counted; the holder's still flow")
    func othersAreDropped() async throws {
        try await withTestServer { server in
            let members = try await Self.crew(server, ["alice", "bob", "carol"])
            let (alice, bob, carol) = (members[0], members[1], members[2])
            _ = try await alice.peer.request(.floorRequest(FloorCommand(channel: "deck")))
            try await bob.peer.barrier()
            let packets = try tonePackets(10)
            async let carolHeard = collect(carol.media, count: 10)
            for (index, packet) in packets.enumerated() {
                try alice.media.send(opus: packet, timestamp: UInt32(index * 960), marker: index == 0)
                try bob.media.send(opus: [0xFC, 0xFF, 0xFE], timestamp: UInt32(index * 960))  // bob talks over alice
                try await Task.sleep(for: .milliseconds(5))
            }
            let heard = await carolHeard
            #expect(heard.map(\.payload) == packets)
            #expect(heard.allSatisfy { $0.speakerSSRC == alice.ssrc })
            let metrics = try await server.admin.getText("/metrics")
            #expect(metrics.contains(#"ptt_media_packets_dropped_total{reason="not-floor-holder"} 10"#))
            // Counted per member too (reported by the relay at most every 250 ms: wait for the last report).
            let deadline = ContinuousClock.now + .seconds(5).scaled
            var bobDropped = 0
            while ContinuousClock.now < deadline {
                try bob.media.send(opus: [0xFC, 0xFF, 0xFE], timestamp: 99_999)
                let detail: ChannelDetail = try await server.admin.get("/api/channels/deck")
                bobDropped = detail.members.first { $0.user == "bob" }?.droppedNotHolder ?? 0
                if bobDropped >= 10 { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(bobDropped >= 10)
            let aliceDropped: ChannelDetail = try await server.admin.get("/api/channels/deck")
            #expect(aliceDropped.members.first { $0.user == "alice" }?.droppedNotHolder == 0)
        }
    }

    @Test("media keeps the floor past T1; silence then ends it with end-of-media")
    func mediaFeedsT1() async throws {
        // T1 is 1 s (scaled under sanitizers): the relay reports a talking member at most every 250 ms, so media
        // keeps the floor unless a report comes 750 ms late, which a loaded machine did for 400 ms. The burst lasts
        // two T1; the floor is read 1.25 T1 into it, while the rest is still sent.
        let t1 = Duration.seconds(1).scaled
        try await withTestServer(configure: { $0.floor.endOfMediaTimeout = t1 }) { server in
            let members = try await Self.crew(server, ["alice", "bob"])
            let (alice, bob) = (members[0], members[1])
            _ = try await alice.peer.request(.floorRequest(FloorCommand(channel: "deck")))
            let packets = try tonePackets(Int(2 * t1.milliseconds / 20))
            let first = packets.count * 5 / 8
            try await burst(alice, Array(packets[..<first]))
            async let rest: Void = burst(alice, Array(packets[first...]))
            let stillTaken: ChannelDetail = try await server.admin.get("/api/channels/deck")
            try await rest
            #expect(stillTaken.speaker?.user == "alice", "1.25 T1 into the burst, media kept the floor")
            let revoked = try await alice.peer.next("floor-revoked")
            guard case .floorRevoked(let r) = revoked else { throw TestFailure("expected floor-revoked") }
            #expect(r.cause == .endOfMedia)
            _ = try await bob.peer.next("floor-idle")
        }
    }

    @Test("the first audio on an idle floor takes it, and no packet of that burst is lost")
    func implicitFloorRequest() async throws {
        try await withTestServer { server in
            let members = try await Self.crew(server, ["alice", "bob"])
            let (alice, bob) = (members[0], members[1])
            let packets = try tonePackets(20)
            async let bobHeard = collect(bob.media, count: packets.count)
            try await burst(alice, packets)
            #expect(await bobHeard.map(\.payload) == packets)
            _ = try await alice.peer.next("floor-granted")
            _ = try await bob.peer.next("floor-taken")
        }
    }

    @Test("forged, unknown and malformed datagrams are dropped and counted; the relay keeps relaying")
    func badDatagrams() async throws {
        try await withTestServer { server in
            let members = try await Self.crew(server, ["alice", "bob"])
            let (alice, bob) = (members[0], members[1])
            _ = try await alice.peer.request(.floorRequest(FloorCommand(channel: "deck")))
            let port = alice.joined.media.port
            // A raw socket that knows alice's SSRC but not her key.
            let forger = try await MediaSession.open(
                host: "127.0.0.1",
                parameters: MediaParameters(
                    ssrc: alice.ssrc, listenSSRC: 1, port: port, security: .srtp, suite: SRTPSession.suiteName,
                    key: Data(repeating: 7, count: 30).base64EncodedString(), payloadType: 111))
            try forger.send(opus: [0xFC, 0xFF, 0xFE], timestamp: 0)
            let stranger = try await MediaSession.open(
                host: "127.0.0.1",
                parameters: MediaParameters(
                    ssrc: 0x1234_5678, listenSSRC: 2, port: port, security: .plain, suite: nil, key: nil,
                    payloadType: 111))
            try stranger.send(opus: [0xFC, 0xFF, 0xFE], timestamp: 0)
            let packets = try tonePackets(5)
            async let bobHeard = collect(bob.media, count: packets.count)
            try await burst(alice, packets, pace: .milliseconds(5))
            #expect(await bobHeard.map(\.payload) == packets)
            let metrics = try await server.admin.getText("/metrics")
            // The audio packet and at least one keep-alive of each.
            #expect(metricValue(metrics, #"ptt_media_packets_dropped_total{reason="authentication"}"#) ?? 0 >= 2)
            #expect(metricValue(metrics, #"ptt_media_packets_dropped_total{reason="unknown-ssrc"}"#) ?? 0 >= 2)
            await forger.close()
            await stranger.close()
        }
    }
}
