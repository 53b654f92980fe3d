import Foundation
import PTTCore
import PTTKit
import PTTProtocol
import ServerTestSupport
import TestSupport
import Testing

@testable import PTTServer

/// Emergencies over loopback (Docs/PROTOCOL.md 5.32–5.35): the right, the stored state every member is told of, the
/// floor taken at once, and who may clear it.
@Suite("Emergencies")
struct EmergencyTests {
    static func declare(_ peer: Peer, _ level: EmergencyGrade? = nil) async throws -> EmergencyDeclared {
        let reply = try await peer.request(.emergency(EmergencyRequest(channel: "deck", level: level)))
        guard case .emergencyDeclared(let declared) = reply else {
            throw TestFailure("expected emergency-declared, got \(reply.type)")
        }
        return declared
    }

    static func refusal(_ peer: Peer, _ message: ControlMessage) async throws -> ErrorFrame {
        do {
            let reply = try await peer.request(message)
            throw TestFailure("expected a refusal, got \(reply.type)")
        } catch ControlClientError.refused(let error) {
            return error
        }
    }

    @Test(
        "without the right a declaration is refused; with it the emergency is stored, told to every member, in joined and the admin API"
    )
    func declaredAndShown() async throws {
        try await withTestServer { server in
            let members = try await RelayTests.crew(server, ["ann", "bob"])
            let (ann, bob) = (members[0], members[1])
            let refused = try await Self.refusal(ann.peer, .emergency(EmergencyRequest(channel: "deck")))
            #expect(refused.code == .notPermitted, "\(refused.message)")
            #expect((await bob.peer.pending()).allSatisfy { $0.type != "emergency-declared" })

            let rights: UserStatus = try await server.admin.put(
                "/api/users/ann/rights", body: UserRightsRequest(rights: [.emergency]))
            #expect(rights.rights == [.emergency])
            let users: [UserStatus] = try await server.admin.get("/api/users")
            #expect(users.first { $0.name == "ann" }?.rights == [.emergency])
            #expect(users.first { $0.name == "bob" }?.rights == [])

            let declared = try await Self.declare(ann.peer)
            #expect(declared.emergency.level == .emergency)
            #expect(declared.emergency.member.user == "ann")
            #expect(declared.emergency.member.id == ann.joined.member.id)
            guard case .emergencyDeclared(let told) = try await bob.peer.next("emergency-declared") else { return }
            #expect(told.re == nil && told.emergency == declared.emergency)
            #expect(told.channel.name == "deck")

            let detail: ChannelDetail = try await server.admin.get("/api/channels/deck")
            #expect(detail.emergency?.level == .emergency)
            #expect(detail.emergency?.user == "ann" && detail.emergency?.member == ann.joined.member.id)
            #expect(detail.recording == true, "bursts are recorded while the emergency holds")
            let list: [ChannelSummary] = try await server.admin.get("/api/channels")
            #expect(list.first?.emergency == .emergency)

            // A member who joins now is shown the emergency in `joined`.
            let carolSecret = try await server.addUser("carol")
            let carol = try await server.connect("carol", secret: carolSecret)
            let joined = try await carol.join("deck")
            #expect(joined.emergency == declared.emergency)
            #expect(joined.recorded == true)

            let metrics = try await server.admin.getText("/metrics")
            #expect(metricValue(metrics, #"ptt_emergencies_declared_total{level="emergency"}"#) == 1)
            #expect(metricValue(metrics, "ptt_channels_in_emergency") == 1)

            // Another user's declaration on the same channel is refused: the first declarer keeps it.
            _ =
                try await server.admin.put("/api/users/bob/rights", body: UserRightsRequest(rights: [.emergency]))
                as UserStatus
            let busy = try await Self.refusal(bob.peer, .emergency(EmergencyRequest(channel: "deck")))
            #expect(busy.code == .channelBusy, "\(busy.message)")
            await ann.media.close()
            await bob.media.close()
        }
    }

    @Test(
        "an emergency takes the floor from a higher-priority talker at once: revoked with cause emergency, no grace, and from then on only the declarer is heard"
    )
    func preemptsTheTalker() async throws {
        try await withTestServer(configure: { $0.implicitFloorRequest = false }) { server in
            let members = try await RelayTests.crew(server, ["ann", "bob", "carol"])
            let (ann, bob, carol) = (members[0], members[1], members[2])
            _ =
                try await server.admin.put("/api/users/ann/rights", body: UserRightsRequest(rights: [.emergency]))
                as UserStatus
            #expect(try await bob.peer.request(.floorRequest(FloorCommand(channel: "deck"))).type == "floor-granted")
            try await carol.peer.barrier()
            async let before = collect(carol.media, count: 10)
            try await RelayTests().burst(bob, try tonePackets(10))
            #expect((await before).allSatisfy { $0.speakerSSRC == bob.ssrc })

            let asked = ContinuousClock.now
            _ = try await Self.declare(ann.peer)
            guard case .floorGranted = try await ann.peer.next("floor-granted") else { return }
            let granted = ContinuousClock.now - asked
            guard case .floorRevoked(let revoked) = try await bob.peer.next("floor-revoked") else { return }
            #expect(revoked.cause == .emergency)
            #expect((await bob.peer.pending()).allSatisfy { $0.type != "floor-revoke-pending" })
            let taken = try await carol.peer.next("ann's floor-taken") {
                if case .floorTaken(let taken) = $0 { taken.member.user == "ann" } else { false }
            }
            #expect(taken.type == "floor-taken")
            print("emergency: declaration to floor-granted \(granted) over loopback")

            // The former holder's packets are dropped; the declarer's reach every listener from the first one.
            async let heard = collect(carol.media, count: 20)
            try await RelayTests().burst(bob, try tonePackets(5), pace: .milliseconds(1))
            try await RelayTests().burst(ann, try tonePackets(20))
            let stream = await heard
            #expect(stream.count == 20)
            #expect(stream.allSatisfy { $0.speakerSSRC == ann.ssrc }, "a packet of the revoked talker reached carol")
            #expect(stream.first?.marker == true)
            let metrics = try await server.admin.getText("/metrics")
            #expect(metricValue(metrics, #"ptt_floor_revokes_total{cause="emergency"}"#) == 1)
            for member in members { await member.media.close() }
        }
    }

    @Test("an imminent peril ranks above every priority: it takes the floor from a priority 900 talker")
    func imminentPeril() async throws {
        try await withTestServer { server in
            let annSecret = try await server.addUser("ann", rights: [.emergency])
            let bobSecret = try await server.addUser("bob", priority: 900)
            let ann = try await server.connect("ann", secret: annSecret)
            let bob = try await server.connect("bob", secret: bobSecret)
            _ = try await ann.join("deck")
            _ = try await bob.join("deck")
            #expect(try await bob.request(.floorRequest(FloorCommand(channel: "deck"))).type == "floor-granted")
            let declared = try await Self.declare(ann, .imminentPeril)
            #expect(declared.emergency.level == .imminentPeril)
            _ = try await ann.next("floor-granted")
            guard case .floorRevoked(let revoked) = try await bob.next("floor-revoked") else { return }
            #expect(revoked.cause == .emergency)
            // An ordinary request by the priority 900 member now queues behind the declarer.
            let again = try await bob.request(.floorRequest(FloorCommand(channel: "deck")))
            #expect(again.type == "floor-queued" || again.type == "floor-denied", "\(again.type)")
        }
    }

    @Test("only the declarer's user or an operator clears an emergency, and every member is told who")
    func clearing() async throws {
        try await withTestServer { server in
            let annSecret = try await server.addUser("ann", rights: [.emergency])
            let bobSecret = try await server.addUser("bob")
            let ann = try await server.connect("ann", secret: annSecret)
            let bob = try await server.connect("bob", secret: bobSecret)
            _ = try await ann.join("deck", name: "Ann")
            _ = try await bob.join("deck")
            let notInEmergency = try await Self.refusal(ann, .emergencyClear(EmergencyClear(channel: "deck")))
            #expect(notInEmergency.code == .badRequest)

            _ = try await Self.declare(ann)
            let notHers = try await Self.refusal(bob, .emergencyClear(EmergencyClear(channel: "deck")))
            #expect(notHers.code == .notPermitted, "\(notHers.message)")
            let reply = try await ann.request(.emergencyClear(EmergencyClear(channel: "deck")))
            guard case .emergencyCleared(let cleared) = reply else { throw TestFailure("got \(reply.type)") }
            #expect(cleared.by == .declarer && cleared.name == "Ann")
            guard case .emergencyCleared(let told) = try await bob.next("emergency-cleared") else { return }
            #expect(told.by == .declarer && told.re == nil)
            let detail: ChannelDetail = try await server.admin.get("/api/channels/deck")
            #expect(detail.emergency == nil)

            _ = try await Self.declare(ann)
            try await server.admin.perform(.DELETE, "/api/channels/deck/emergency")
            for peer in [ann, bob] {
                guard case .emergencyCleared(let byOperator) = try await peer.next("emergency-cleared") else { return }
                #expect(byOperator.by == .operator)
            }
            do {
                try await server.admin.perform(.DELETE, "/api/channels/deck/emergency")
                Issue.record("a second clear succeeded")
            } catch let error as AdminError {
                #expect(error.code == .conflict)
            }
            let metrics = try await server.admin.getText("/metrics")
            #expect(metricValue(metrics, #"ptt_emergencies_cleared_total{by="declarer"}"#) == 1)
            #expect(metricValue(metrics, #"ptt_emergencies_cleared_total{by="operator"}"#) == 1)
            #expect(metricValue(metrics, "ptt_channels_in_emergency") == 0)
        }
    }

    @Test("an unknown right or level is refused with the known ones")
    func unknownValues() async throws {
        try await withTestServer { server in
            let secret = try await server.addUser("ann", rights: [.emergency])
            do {
                let _: UserStatus = try await server.admin.put(
                    "/api/users/ann/rights", body: UserRightsRequest(rights: [.unknown("fly")]))
                Issue.record("an unknown right was taken")
            } catch let error as AdminError {
                #expect(error.code == .badRequest && error.message.contains("emergency"), "\(error.message)")
            }
            let ann = try await server.connect("ann", secret: secret)
            _ = try await ann.join("deck")
            let refused = try await Self.refusal(
                ann, .emergency(EmergencyRequest(channel: "deck", level: .unknown("doom"))))
            #expect(refused.code == .badRequest && refused.message.contains("imminent-peril"))
        }
    }
}
