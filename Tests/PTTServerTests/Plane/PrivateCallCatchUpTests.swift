import Foundation
import PTTAdmin
import PTTCore
import PTTKit
import PTTProtocol
import ServerTestSupport
import TestSupport
import Testing

@testable import PTTServer

/// A call's first words reach a side whose media opens after the caller began: the race at every call's start
/// (`ptt answer` once recorded 307 of 309 packets: the first two came before its call stream was heard).
extension PrivateCallTests {
    @Test(
        "a callee whose call stream the relay hears only after the caller began talking hears the call from its first packet"
    )
    func calleeHeardLateCatchesUp() async throws {
        try await withTestServer { server in
            let ann = try await RelayTests.crew(server, ["ann"])[0]
            let bob = try await Self.talker(server, "bob", secret: try await server.addUser("bob"))
            let call = try await Self.place(ann.peer, to: "bob")
            _ = try await Self.incoming(bob.peer)
            guard case .callConnected(let bobSide) = try await bob.peer.request(.callAccept(CallCommand(call: call.id)))
            else { throw TestFailure("not connected") }
            guard case .callConnected(let annSide) = try await ann.peer.next("call-connected") else { return }
            let annCall = try await MediaSession.open(host: "127.0.0.1", parameters: annSide.media)
            try await eventually("the relay hears ann's call stream") {
                try await PTTServerTests.member(server, call.id, user: "ann").audioReachable
            }
            #expect(try await ann.peer.request(.floorRequest(FloorCommand(channel: call.id))).type == "floor-granted")

            // Ann says 10 packets before bob's call stream is open, 10 after it is heard.
            let packets = try tonePackets(20)
            let annTalking = Talker(peer: ann.peer, joined: ann.joined, media: annCall)
            let timestamp = try await ReleaseRaceTests.send(annTalking, packets.prefix(10), from: 4_000, first: true)
            let bobCall = try await MediaSession.open(host: "127.0.0.1", parameters: bobSide.media)
            async let bobHeard = collect(bobCall, count: packets.count)
            try await eventually("the relay hears bob's call stream") {
                try await PTTServerTests.member(server, call.id, user: "bob").audioReachable
            }
            _ = try await ReleaseRaceTests.send(annTalking, packets.suffix(10), from: timestamp, first: false)
            let heard = await bobHeard
            #expect(heard.map(\.payload) == packets, "bob heard \(heard.count) of \(packets.count), in order")
            await annCall.close()
            await bobCall.close()
            await bob.media.close()
        }
    }
}
