import Foundation
import PTTCore
import PTTKit
import PTTProtocol
import PTTServer
import ServerTestSupport
import TestSupport
import Testing

/// An operator revokes a talking member's floor. Its app has not let go yet and its packets in flight arrive after
/// the revoke: they must not take the floor straight back as an implicit request (before, they did, and the page that
/// was revoked showed "granted" again a moment later: `ConsoleTests.live` timed out waiting for "revoked").
@Suite("The grace after a revoke")
struct RevokeGraceTests {
    @Test("a revoked member still sending takes no floor until it has been silent; then talking takes it again")
    func revokedTalkerStaysRevoked() async throws {
        // A grace of 1.5 s (scaled in sanitized runs), not the default 500 ms: alice's reports come every 250 ms, and
        // on a loaded machine two of them reached the plane more than 500 ms apart.
        let grace = Duration.milliseconds(1500).scaled
        try await withTestServer(configure: { $0.floor.releaseGrace = grace }) { server in
            let crew = try await RelayTests.crew(server, ["alice", "bob"])
            let (alice, bob) = (crew[0], crew[1])
            guard case .floorGranted = try await alice.peer.request(.floorRequest(FloorCommand(channel: "deck"))) else {
                throw TestFailure("floor not granted")
            }
            _ = try await bob.peer.next("floor-taken")
            let packets = try tonePackets(30)
            // Alice's app talks on, every 20 ms, through the revoke and until the test has looked, as an app that
            // has not let go yet does. (Before, the test sent its post-revoke packets once it had seen the revoke:
            // under ThreadSanitizer that came more than the grace after it, and alice's audio took the floor.)
            let sending = Self.talk(alice, packets, from: 1_000)
            try await server.admin.perform(.POST, "/api/channels/deck/revoke")
            _ = try await alice.peer.next("floor-revoked")
            _ = try await bob.peer.next("floor-idle")
            // She talks on for 600 ms more (the stimulus, not a wait for an event): the relay reports her talking
            // every 250 ms…
            try await Task.sleep(for: .milliseconds(600))
            // …and bob's barrier: every floor event the plane sent before it has reached him. None gave alice the
            // floor.
            try await bob.peer.barrier()
            let seen = await bob.peer.pending().map(\.type)
            #expect(!seen.contains("floor-taken"), "alice's audio after the revoke took the floor again: \(seen)")
            let state = try await Self.floor(server)
            #expect(state == .idle, "the floor stays idle while the revoked member's audio goes on")
            sending.cancel()
            let timestamp = try await sending.value

            // Silent for longer than the grace (the stimulus here, not a wait for an event), alice talking again is
            // a new implicit request.
            try await Task.sleep(for: grace + .milliseconds(500))
            _ = try await ReleaseRaceTests.send(alice, packets[20..<30], from: timestamp, first: true)
            let taken = try await bob.peer.next("floor-taken")
            guard case .floorTaken(let event) = taken else { throw TestFailure("expected floor-taken") }
            #expect(event.member.user == "alice")
            await alice.media.close()
            await bob.media.close()
        }
    }

    /// `talker` sends `packets` over and over, one every 20 ms, until cancelled (or for at most 60 s); the task's
    /// value is the RTP timestamp its next packet would have had.
    static func talk(_ talker: Talker, _ packets: [[UInt8]], from timestamp: UInt32) -> Task<UInt32, any Error> {
        Task {
            var timestamp = timestamp
            for index in 0..<3000 where !Task.isCancelled {
                try talker.media.send(opus: packets[index % packets.count], timestamp: timestamp, marker: index == 0)
                timestamp &+= 960
                try? await Task.sleep(for: .milliseconds(20))
            }
            return timestamp
        }
    }

    /// The floor of channel deck, as the admin API shows it.
    static func floor(_ server: TestServer) async throws -> FloorStatus {
        let detail: ChannelDetail = try await server.admin.get("/api/channels/deck")
        return detail.floor
    }
}
