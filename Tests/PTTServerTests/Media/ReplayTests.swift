import Foundation
import Opus
import PTTKit
import PTTProtocol
import PTTServer
import RTP
import ServerTestSupport
import TestSupport
import Testing

/// Captured audio replayed through a running relay: what every listener receives is checked packet by
/// packet, decoded, and timed.
@Suite("Replaying captured talk bursts through the relay")
struct ReplayTests {
    /// Sends packets paced by their durations, as a talking device does (`speed` times faster than real time).
    static func talk(
        _ speaker: Talker, _ packets: [(data: [UInt8], samples: Int)], from first: Int = 0,
        startTimestamp: UInt32 = 0x1000_0000, speed: Double = 1,
        onIndex: ((Int) async throws -> Void)? = nil
    ) async throws {
        let start = ContinuousClock.now
        var elapsed = 0
        var timestamp = startTimestamp
        for (index, packet) in packets.enumerated() {
            try await onIndex?(index)
            let due = start + .microseconds(Int64(Double(elapsed) * 1_000 / 48 / speed))
            try await Task.sleep(until: due, clock: .continuous)
            try speaker.media.send(opus: packet.data, timestamp: timestamp, marker: index == 0)
            timestamp &+= UInt32(packet.samples)
            elapsed += packet.samples
        }
    }

    static func decode(_ payloads: [[UInt8]], channels: Int) throws -> [Int16] {
        let decoder = try OpusDecoder(sampleRate: 48_000, channels: channels)
        return try payloads.flatMap { try decoder.decode($0) }
    }

    @Test(
        "every listener receives exactly the burst: same packets, same decoded audio, real-time pace",
        arguments: ["burst-20ms-mono.opus", "burst-60ms-mono.opus", "burst-10ms-stereo.opus", "burst-dtx.opus"])
    func replay(fixture: String) async throws {
        let (channels, packets) = try Fixtures.opus(fixture)
        #expect(packets.count > 50)
        try await withTestServer { server in
            let members = try await RelayTests.crew(server, ["alice", "bob", "carol"])
            let (alice, bob, carol) = (members[0], members[1], members[2])
            _ = try await alice.peer.request(.floorRequest(FloorCommand(channel: "deck")))
            try await bob.peer.barrier()
            try await carol.peer.barrier()

            let total = packets.reduce(0) { $0 + $1.samples }
            let timeout = Duration.milliseconds(total / 48) + .seconds(15)
            async let bobHeard = collect(bob.media, count: packets.count, timeout: timeout)
            async let carolHeard = collect(carol.media, count: packets.count, timeout: timeout)
            try await Self.talk(alice, packets)
            let original = try Self.decode(packets.map(\.data), channels: channels)
            for heard in [await bobHeard, await carolHeard] {
                #expect(heard.count == packets.count, "\(fixture): received \(heard.count) of \(packets.count)")
                #expect(heard.map(\.payload) == packets.map(\.data), "\(fixture): packets differ")
                guard heard.count == packets.count else { continue }
                #expect(Set(heard.map(\.sequenceNumber)).count == heard.count, "duplicates")
                for (index, (a, b)) in zip(heard, heard.dropFirst()).enumerated() {
                    #expect(b.sequenceNumber == a.sequenceNumber &+ 1)
                    #expect(b.timestamp &- a.timestamp == UInt32(packets[index].samples))
                }
                #expect(try Self.decode(heard.map(\.payload), channels: channels) == original)
                // The pace is checked in plain builds only: under a sanitizer the process runs 2–10 times slower, and a
                // 100-packet-per-second stream encrypted, relayed and decrypted three times in it falls behind the
                // clock (10.7 s of arrivals for 6.2 s of audio under ThreadSanitizer, on 2 cores). That pass checks
                // the packets, their order and the audio, above.
                guard TestTimeouts.scale == 1 else { continue }
                let expected = Double(total - packets.last!.samples) / 48  // ms from first to last send
                let span = Double(heard.last!.arrival - heard.first!.arrival) / 1e6
                #expect(
                    abs(span - expected) < max(0.1 * expected, 150),
                    "\(fixture): \(span) ms of arrivals for \(expected) ms of audio")
            }
        }
    }

    @Test("a captured RTP stream is relayed packet for packet")
    func capturedRTPStream() async throws {
        let capture = try Fixtures.rtpCapture("burst-rtp.pcap")
        #expect(capture.count == 309)
        try await withTestServer { server in
            let members = try await RelayTests.crew(server, ["alice", "bob"])
            let (alice, bob) = (members[0], members[1])
            _ = try await alice.peer.request(.floorRequest(FloorCommand(channel: "deck")))
            try await bob.peer.barrier()
            let rtp = try capture.map { try RTPHeader.parse($0.rtp) }
            let payloads = zip(capture, rtp).map { Array($0.rtp[$1.payloadRange(packetLength: $0.rtp.count)]) }
            async let heard = collect(bob.media, count: capture.count, timeout: .seconds(25))
            let start = ContinuousClock.now
            for (index, packet) in capture.enumerated() {
                let offset = packet.time - capture[0].time
                try await Task.sleep(until: start + .microseconds(Int64(offset * 1e6)), clock: .continuous)
                try alice.media.send(opus: payloads[index], timestamp: rtp[index].timestamp, marker: rtp[index].marker)
            }
            let received = await heard
            #expect(received.map(\.payload) == payloads)
            guard received.count == rtp.count else { return }
            for index in 1..<rtp.count {
                #expect(
                    received[index].timestamp &- received[index - 1].timestamp == rtp[index].timestamp
                        &- rtp[index - 1].timestamp)
            }
        }
    }

    @Test("a second talker is held off during a burst and gets the floor after release; a late joiner hears the rest")
    func secondTalkerAndLateJoiner() async throws {
        let (_, packets) = try Fixtures.opus("burst-20ms-mono.opus")
        let burst = Array(packets.prefix(100))
        try await withTestServer { server in
            let members = try await RelayTests.crew(server, ["alice", "bob"])
            let (alice, bob) = (members[0], members[1])
            _ = try await alice.peer.request(.floorRequest(FloorCommand(channel: "deck")))
            try await bob.peer.barrier()

            let carolSecret = try await server.addUser("carol")
            let carolBox = LateJoiner()
            async let bobHeard = collect(bob.media, count: burst.count, timeout: .seconds(15))
            try await Self.talk(alice, burst) { index in
                if index == 30 {
                    // Bob asks during the burst: queued, and his audio is dropped.
                    let answer = try await bob.peer.request(.floorRequest(FloorCommand(channel: "deck")))
                    #expect(answer.type == "floor-queued")
                    try bob.media.send(opus: burst[0].data, timestamp: 1)
                }
                if index == 50 {
                    // Carol joins mid-burst.
                    let peer = try await server.connect("carol", secret: carolSecret)
                    let joined = try await peer.join("deck")
                    let media = try await MediaSession.open(host: "127.0.0.1", parameters: joined.media)
                    await carolBox.set(Talker(peer: peer, joined: joined, media: media))
                    // …and the relay hears her before alice goes on. Her media session's first keep-alive leaves on
                    // its event loop; under ThreadSanitizer alice's overdue packets (her pacing kept time while carol
                    // joined) once all went first, and carol heard only the last 5.
                    try await eventually("the relay hears carol") {
                        try await member(server, "deck", user: "carol").audioReachable
                    }
                }
            }
            let bobGot = await bobHeard
            #expect(bobGot.map(\.payload) == burst.map(\.data))
            let carol = try #require(await carolBox.talker)
            // Carol heard a contiguous tail of the burst, ending with its last packet.
            let carolGot = await collect(carol.media, count: burst.count, timeout: .milliseconds(500))
            #expect(carolGot.count > 10 && carolGot.count <= 50, "carol got \(carolGot.count)")
            #expect(carolGot.map(\.payload) == burst.suffix(carolGot.count).map(\.data))

            _ = try await alice.peer.request(.floorRelease(FloorCommand(channel: "deck")))
            _ = try await bob.peer.next("floor-granted")
            let reply = Array(packets.prefix(10))
            async let aliceHeard = collect(alice.media, count: reply.count, timeout: TestTimeouts.eventWait)
            try await Self.talk(bob, reply)
            let aliceGot = await aliceHeard
            #expect(aliceGot.map(\.payload) == reply.map(\.data))
            #expect(aliceGot.first?.marker == true)
            #expect(aliceGot.allSatisfy { $0.speakerSSRC == bob.ssrc })
            let metrics = try await server.admin.getText("/metrics")
            #expect(metrics.contains(#"ptt_media_packets_dropped_total{reason="not-floor-holder"} 1"#))
        }
    }

    @Test("a speaker vanishing mid-burst frees the floor after T1")
    func speakerVanishes() async throws {
        let (_, packets) = try Fixtures.opus("burst-20ms-mono.opus")
        // T1 scales: a relay lagging behind by more than T1 (sanitizer, loaded machine) would hand late audio an implicit request.
        try await withTestServer(configure: { $0.floor.endOfMediaTimeout = .milliseconds(500).scaled }) { server in
            let members = try await RelayTests.crew(server, ["alice", "bob"])
            let (alice, bob) = (members[0], members[1])
            _ = try await alice.peer.request(.floorRequest(FloorCommand(channel: "deck")))
            try await Self.talk(alice, Array(packets.prefix(40)))
            await alice.media.close()
            await alice.peer.close()  // gone: no release, no more audio
            let idle = try await bob.peer.next(timeout: TestTimeouts.eventWait, "floor-idle") {
                $0.type == "floor-idle"
            }
            #expect(idle.type == "floor-idle")
            // The plane sees alice's audio through the relay's reports: on a loaded machine they can come late
            // enough that T1 expires mid-burst and her next report takes the idle floor again (an implicit
            // request; a fresh clone's make test saw it once). Whatever happened meanwhile, the floor is idle once
            // T1 has passed since her last packet.
            try await eventually("the floor of deck idle after alice vanished") {
                let detail: ChannelDetail = try await server.admin.get("/api/channels/deck")
                return detail.floor == .idle
            }
        }
    }
}

actor LateJoiner {
    var talker: Talker?
    func set(_ talker: Talker) { self.talker = talker }
}
