import Foundation
import PTTCore
import PTTKit
import PTTProtocol
import PTTServer
import ServerTestSupport
import TestSupport
import Testing

/// A talker that releases the instant its last packet leaves: the release (TCP, the plane's thread) can overtake the
/// packets (UDP, the relay's thread). Real server, real sockets on loopback; the late packets are sent once the
/// release is answered, the worst case of that race.
@Suite("A release that overtakes the last packets")
struct ReleaseRaceTests {
    /// Sends `packets` from `speaker` on one timeline starting at `timestamp`, `pace` apart; returns the next timestamp.
    static func send(
        _ speaker: Talker, _ packets: ArraySlice<[UInt8]>, from timestamp: UInt32, first: Bool,
        pace: Duration? = .milliseconds(20)
    ) async throws -> UInt32 {
        var timestamp = timestamp
        for (index, packet) in packets.enumerated() {
            try speaker.media.send(opus: packet, timestamp: timestamp, marker: first && index == 0)
            timestamp &+= 960
            if let pace { try await Task.sleep(for: pace) }
        }
        return timestamp
    }

    /// The release grace of the tests that need late packets to arrive within it whatever the machine's load.
    static let longGrace = Duration.seconds(3)

    @Test("every packet of the burst reaches the listener, in one burst, and the late ones take no floor")
    func everyPacketArrives() async throws {
        try await withTestServer(configure: { $0.floor.releaseGrace = Self.longGrace }) { server in
            let members = try await RelayTests.crew(server, ["alice", "bob"])
            let (alice, bob) = (members[0], members[1])
            guard case .floorGranted = try await alice.peer.request(.floorRequest(FloorCommand(channel: "deck"))) else {
                throw TestFailure("floor not granted")
            }
            try await bob.peer.barrier()
            let packets = try tonePackets(20)
            async let bobHeard = collect(bob.media, count: packets.count)
            var timestamp = try await Self.send(alice, packets.prefix(17), from: 7_000, first: true)
            // The release is answered: the plane let go of the floor and told the relay. The last three packets,
            // sent with it, come after it.
            _ = try await alice.peer.request(.floorRelease(FloorCommand(channel: "deck")))
            timestamp = try await Self.send(alice, packets.suffix(3), from: timestamp, first: false, pace: nil)
            let heard = await bobHeard
            #expect(heard.map(\.payload) == packets, "bob heard \(heard.count) of \(packets.count) packets")
            #expect(heard.dropFirst().allSatisfy { !$0.marker }, "one burst")
            #expect(zip(heard, heard.dropFirst()).allSatisfy { $1.timestamp == $0.timestamp &+ 960 })

            // The late packets asked for nothing: bob's audio takes the idle floor, and that is the next floor
            // event alice sees (the relay reports in arrival order, and alice's late packets came first).
            _ = try await alice.peer.next("floor-idle")
            _ = try await Self.send(bob, packets.prefix(1), from: 0, first: true, pace: nil)
            let next = try await alice.peer.next("floor-granted or floor-taken") {
                $0.type == "floor-granted" || $0.type == "floor-taken"
            }
            guard case .floorTaken(let taken) = next else { throw TestFailure("alice got \(next.type)") }
            #expect(taken.member.user == "bob")
            let metrics = try await server.admin.getText("/metrics")
            #expect(metricValue(metrics, #"ptt_media_packets_dropped_total{reason="not-floor-holder"}"#) == 0)
            await alice.media.close()
            await bob.media.close()
        }
    }

    @Test(
        "late packets after a release start no implicit request and no second wake",
        .disabled(
            if: TestTimeouts.scale > 1,
            "timing: the late packets must reach the relay more than 250 ms after the release, within the grace, which a sanitized relay does not keep to"
        ))
    func noSecondWake() async throws {
        // A grace of 3 s, not the default 500 ms: the late packets must arrive within it, and on a loaded machine
        // 280 ms of sleep and a report's way to the plane took more than 500 ms.
        try await withTestServer(configure: { $0.floor.releaseGrace = Self.longGrace }) { server in
            let crew = try await RelayTests.crew(server, ["ann", "carol"])
            let (ann, carol) = (crew[0], crew[1])
            let bobSecret = try await server.addUser("bob")
            let bob = try await server.connect("bob", secret: bobSecret, device: "bob-phone", role: .pushProvider)
            _ = try await bob.join("deck", name: "Bob")
            guard case .floorGranted = try await ann.peer.request(.floorRequest(FloorCommand(channel: "deck"))) else {
                throw TestFailure("floor not granted")
            }
            let packets = try tonePackets(15)
            async let carolHeard = collect(carol.media, count: packets.count)
            let timestamp = try await Self.send(ann, packets.prefix(12), from: 0, first: true)
            _ = try await ann.peer.request(.floorRelease(FloorCommand(channel: "deck")))
            // The last packets were held up on the way (Wi-Fi retries): they reach the relay 280 ms after the
            // release, past the relay's 250 ms between two reports of ann talking (so, without the grace, they would
            // be reported and be an implicit request) and within the grace.
            try await Task.sleep(for: .milliseconds(280))
            _ = try await Self.send(ann, packets.suffix(3), from: timestamp, first: false, pace: nil)
            #expect(await carolHeard.count == packets.count)

            // Carol talks once the relay has handled ann's late packets: hers is the next burst, and its wake the
            // second; ann's late packets made neither a burst nor a wake.
            _ = try await Self.send(carol, packets.prefix(1), from: 0, first: true, pace: nil)
            _ = try await ann.peer.next("floor-idle")
            let next = try await ann.peer.next("floor-granted or floor-taken") {
                $0.type == "floor-granted" || $0.type == "floor-taken"
            }
            guard case .floorTaken(let second) = next else { throw TestFailure("ann got \(next.type)") }
            #expect(second.member.user == "carol")
            try await bob.barrier()
            let wakes = pushes(await bob.pending())
            #expect(wakes.map(\.payload.activeSpeaker) == ["ann", "carol"], "one wake per burst, none for late audio")
            let totals: WakeTotals = try await server.admin.get("/api/wakes")
            #expect(wakeCount(totals, .wake, .localPush, .sent) == 2)
            await ann.media.close()
            await carol.media.close()
        }
    }
}
