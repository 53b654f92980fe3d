import Foundation
import PTTAdmin
import PTTCore
import PTTKit
import PTTProtocol
import ServerTestSupport
import TestSupport
import Testing

@testable import PTTServer

/// Members who join, leave or reconnect while a broadcast runs (Docs/PROTOCOL.md 5.43).
extension BroadcastTests {
    @Test(
        "mid-broadcast: a member that joins or reconnects is told; a device joining a second of its channels gets no second copy, and hears it on that one once it leaves the first"
    )
    func membersChangeMidBroadcast() async throws {
        try await withTestServer(configure: Self.askedFloors) { server in
            let captain = try await Self.captain(server)
            let bobDeck = try await Self.member(server, "bob", in: ["deck"])[0]
            let carlSecret = try await server.addUser("carl")
            let carl = try await server.connect("carl", secret: carlSecret, device: "carl-phone")
            _ = try await carl.join("engine")
            let reply = try await captain.peer.request(
                .broadcast(BroadcastRequest(channel: "bridge", to: ["deck", "engine"])))
            guard case .broadcastStarted(let started) = reply else { throw TestFailure("got \(reply.type)") }
            let info = started.broadcast
            _ = try await bobDeck.peer.next("broadcast-started")
            _ = try await carl.next("broadcast-started")

            // Dan joins engine: right after his joined, he is told of the broadcast, as engine's members were.
            let danSecret = try await server.addUser("dan")
            let dan = try await server.connect("dan", secret: danSecret)
            _ = try await dan.join("engine")
            guard case .broadcastStarted(let told) = try await dan.next("broadcast-started") else { return }
            #expect(told.broadcast == info && told.channel.name == "engine")

            // Carl's app reconnects: told again after its welcome.
            await carl.close()
            let carlAgain = try await server.connect("carl", secret: carlSecret, device: "carl-phone")
            guard case .broadcastStarted(let again) = try await carlAgain.next("broadcast-started") else { return }
            #expect(again.broadcast == info && again.channel.name == "engine")

            // Bob's phone joins engine too, and the relay hears that membership: it is told, and hears the broadcast
            // once, on deck, the first of its channels in the broadcast.
            let joined = try await bobDeck.peer.join("engine")
            let bobEngine = Talker(
                peer: bobDeck.peer, joined: joined,
                media: try await MediaSession.open(host: "127.0.0.1", parameters: joined.media))
            guard case .broadcastStarted(let bobTold) = try await bobDeck.peer.next("broadcast-started") else { return }
            #expect(bobTold.channel.name == "engine")
            try await eventually("bob's engine membership heard by the relay") {
                try await PTTServerTests.member(server, "engine", user: "bob").audioReachable
            }
            let packets = try tonePackets(20)
            // One collection on engine across both halves (a media session's stream is read by one collection): it
            // must get the second half alone.
            async let deckHeard = collect(bobDeck.media, count: 10)
            async let engineHeard = collect(bobEngine.media, count: 10)
            try await ReplayTests.talk(captain, packets.prefix(10).map { (data: $0, samples: 960) })
            #expect(await deckHeard.map(\.payload) == Array(packets.prefix(10)), "bob hears it on deck")

            // Bob leaves deck: the broadcast's next packets reach him on engine.
            _ = try await bobDeck.peer.request(.leave(Leave(channel: "deck")))
            try await bobDeck.peer.barrier()
            try await ReplayTests.talk(
                captain, packets.suffix(10).map { (data: $0, samples: 960) }, startTimestamp: 0x2000_0000)
            let heard = await engineHeard
            let firstHalf = heard.filter { packets.prefix(10).contains($0.payload) }.count
            #expect(firstHalf == 0, "no second copy on engine, which bob joined mid-broadcast: \(firstHalf) of 10")
            #expect(heard.map(\.payload) == Array(packets.suffix(10)), "bob now hears it on engine")

            _ = try await captain.peer.request(.floorRelease(FloorCommand(channel: "bridge")))
            guard case .broadcastEnded(let ended) = try await dan.next("broadcast-ended") else { return }
            #expect(ended.broadcast == info)
            for talker in [captain, bobDeck, bobEngine] { await talker.media.close() }
            for peer in [dan, carlAgain] { await peer.close() }
        }
    }
}
