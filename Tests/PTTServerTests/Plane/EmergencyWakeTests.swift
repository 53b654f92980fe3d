import Foundation
import PTTCore
import PTTKit
import PTTProtocol
import ServerTestSupport
import TestSupport
import Testing

@testable import PTTServer

/// What an emergency does beyond the floor: wakes marked emergency, also for a suspended app the relay still hears,
/// and bursts recorded on a channel that is not.
@Suite("Emergency wakes and recording")
struct EmergencyWakeTests {
    @Test(
        "a suspended member gets exactly one wake marked emergency, also one the relay still hears; a connected app gets none"
    )
    func oneEmergencyWake() async throws {
        try await withTestServer(configure: { $0.implicitFloorRequest = false }) { server in
            let members = try await RelayTests.crew(server, ["ann", "carol"])
            let (ann, carol) = (members[0], members[1])
            _ =
                try await server.admin.put("/api/users/ann/rights", body: UserRightsRequest(rights: [.emergency]))
                as UserStatus
            // Bob: only a Local Push extension, never any audio.
            let bobSecret = try await server.addUser("bob")
            let bob = try await server.connect("bob", secret: bobSecret, device: "bob-phone", role: .pushProvider)
            _ = try await bob.join("deck", name: "Bob")
            // Dave: his app opened its audio, then was suspended; its socket is still heard by the relay.
            let daveSecret = try await server.addUser("dave")
            let daveApp = try await server.connect("dave", secret: daveSecret, device: "dave-phone")
            let daveJoined = try await daveApp.join("deck", name: "Dave")
            let daveMedia = try await MediaSession.open(host: "127.0.0.1", parameters: daveJoined.media)
            let dave = try await server.connect("dave", secret: daveSecret, device: "dave-phone", role: .pushProvider)
            try await eventually("dave heard by the relay") {
                try await member(server, "deck", user: "dave").audioReachable
            }
            await daveApp.close()
            try await eventually("dave's app gone") { try await !member(server, "deck", user: "dave").connected }

            // An ordinary burst wakes bob, not dave (the relay hears him).
            try await RecordingTests.burst(carol, [(data: try tonePackets(1)[0], samples: 960)])
            guard case .push(let ordinary) = try await bob.next("push") else { return }
            #expect(ordinary.payload.kind == nil && ordinary.payload.emergency == nil)
            try await dave.barrier()
            #expect(pushes(await dave.pending()).isEmpty, "dave was woken for an ordinary burst")

            let declared = try await EmergencyTests.declare(ann.peer)
            _ = try await ann.peer.next("floor-granted")
            for (name, peer) in [("bob", bob), ("dave", dave)] {
                guard case .push(let wake) = try await peer.next("push") else { return }
                #expect(wake.payload.kind == .emergency, "\(name)")
                #expect(wake.payload.emergency == declared.emergency, "\(name)")
                #expect(wake.payload.activeSpeaker == "ann" && wake.priority == 10 && wake.expiration == 0)
            }
            _ = try await ann.peer.request(.floorRelease(FloorCommand(channel: "deck")))
            _ = try await ann.peer.next("floor-idle")
            for peer in [bob, dave] {
                try await peer.barrier()
                #expect(pushes(await peer.pending()).isEmpty, "more than one wake")
            }
            let totals: WakeTotals = try await server.admin.get("/api/wakes")
            #expect(wakeCount(totals, .wake, .localPush, .sent) == 3)
            #expect(
                wakeCount(totals, .wake, .unreachable, .expired, "no-route") == 0, "a connected app was a candidate")
            await daveMedia.close()
            for member in members { await member.media.close() }
        }
    }

    @Test("bursts during an emergency are recorded though the channel is not, and not after it is cleared")
    func recordedWhileItHolds() async throws {
        try await withTestServer(configure: { $0.implicitFloorRequest = false }) { server in
            let members = try await RelayTests.crew(server, ["ann", "bob"])
            let (ann, bob) = (members[0], members[1])
            _ =
                try await server.admin.put("/api/users/ann/rights", body: UserRightsRequest(rights: [.emergency]))
                as UserStatus
            let packets = try tonePackets(15).map { (data: $0, samples: 960) }
            try await RecordingTests.burst(bob, packets, heardBy: ann)
            _ = try await EmergencyTests.declare(ann.peer)
            _ = try await ann.peer.next("floor-granted")
            try await ReplayTests.talk(ann, packets, speed: 5)
            _ = try await ann.peer.request(.floorRelease(FloorCommand(channel: "deck")))
            _ = try await ann.peer.next("floor-idle")
            try await RecordingTests.burst(bob, packets, heardBy: ann)  // still in emergency: recorded too
            let history = try await RecordingTests.history(server, count: 2)
            #expect(history.map(\.speaker) == ["bob", "ann"], "newest first")
            #expect(history.allSatisfy { $0.packets == packets.count })

            try await server.admin.perform(.DELETE, "/api/channels/deck/emergency")
            try await RecordingTests.burst(bob, packets, heardBy: ann)
            let detail: ChannelDetail = try await server.admin.get("/api/channels/deck")
            #expect(detail.recording == false)
            let after: [RecordedBurstInfo] = try await server.admin.get("/api/channels/deck/bursts")
            #expect(after.count == 2, "a burst after the emergency was recorded")
            for member in members { await member.media.close() }
        }
    }
}
