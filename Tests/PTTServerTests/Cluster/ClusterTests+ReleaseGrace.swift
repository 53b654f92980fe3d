import Foundation
import PTTKit
import PTTProtocol
import TestSupport
import Testing

/// The release grace across nodes (Docs/PROTOCOL.md 7.5): a talker on a node that does not own the channel releases
/// the instant its last packets leave; its own node's relay, which learns of the release from the owner, forwards
/// those late packets too.
extension ClusterTests {
    @Test(
        "a talker on another node than the owner releases with its last packets on the way: the listener on the owner's node hears every packet"
    )
    func releaseGraceOnTheTalkersNode() async throws {
        let server = try #require(SharedPostgres.server)
        let url = server.url(database: try await server.createDatabase().database)
        let n1 = try await Self.start("n1", database: url)
        defer { n1.daemon.signal(SIGKILL) }
        let n2 = try await Self.start("n2", database: url)
        defer { n2.daemon.signal(SIGKILL) }
        let secrets = try await Self.users(["alice", "bob"], on: n1, known: [n1, n2])
        let alice = try await Self.member("alice", secret: secrets["alice"]!, on: n1, creates: true)
        defer { Task { await alice.talker.peer.close() } }
        _ = try await Self.eventually("deck owned by n1") { try await Self.owner(of: "deck", on: n1) == "n1" }
        let bob = try await Self.member("bob", secret: secrets["bob"]!, on: n2)
        defer { Task { await bob.talker.peer.close() } }
        _ = try await Self.linked(n1, [n2])

        guard case .floorGranted = try await bob.talker.peer.request(.floorRequest(FloorCommand(channel: "deck")))
        else { throw TestFailure("bob was not granted the floor") }
        let packets = try tonePackets(20)
        async let aliceHeard = collect(alice.talker.media, count: packets.count)
        let timestamp = try await ReleaseRaceTests.send(bob.talker, packets.prefix(17), from: 9_000, first: true)
        // The release is answered (n2 heard the owner's floor event): the last three packets come after it.
        _ = try await bob.talker.peer.request(.floorRelease(FloorCommand(channel: "deck")))
        _ = try await ReleaseRaceTests.send(bob.talker, packets.suffix(3), from: timestamp, first: false, pace: nil)
        let heard = await aliceHeard
        var dropped: [String] = []
        for node in [n1, n2] {
            let metrics = try await node.admin.getText("/metrics")
            dropped += metrics.split(separator: "\n").filter {
                $0.hasPrefix("ptt_media_packets_dropped_total") && !$0.hasSuffix(" 0")
            }.map { "\(node.name): \($0)" }
        }
        #expect(
            heard.count == packets.count, "alice heard \(heard.count) of \(packets.count) packets; dropped: \(dropped)")
        #expect(heard.map(\.payload) == packets, "every packet, in order")
        #expect(heard.dropFirst().allSatisfy { !$0.marker }, "one burst")
    }
}
