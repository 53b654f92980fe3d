import Foundation
import PTTAdmin
import PTTProtocol
import ServerTestSupport
import TestSupport
import Testing

/// Emergencies across nodes (Docs/PROTOCOL.md 5.32–5.35, Docs/CLUSTER.md): a declaration on a node that does not
/// own the channel takes the floor at once there too (its urgency rides in the forwarded request, before any node
/// has stored it), and members on the other node are told of it and of its end.
extension ClusterTests {
    @Test(
        "an emergency declared on a node that does not own the channel takes the floor from the owner's talker at once; the owner's members are told it began and ended"
    )
    func emergencyFromAnotherNode() async throws {
        let cluster = try await Self.cluster("n1", "n2", users: ["alice", "bob"])
        defer { cluster.kill() }
        let (n1, n2) = (cluster.nodes[0], cluster.nodes[1])
        let alice = try await cluster.founder("alice", on: n1)
        let bob = try await cluster.member("bob", on: n2)
        _ = try await Self.linked(n1, [n2])
        let _: UserStatus = try await n1.admin.put(
            "/api/users/bob/rights", body: UserRightsRequest(rights: [.emergency]))
        _ = try await Self.eventually("n2 knows bob's right") {
            let users: [UserStatus] = try await n2.admin.get("/api/users")
            return users.first { $0.name == "bob" }?.rights == [.emergency]
        }

        guard case .floorGranted = try await alice.talker.peer.request(.floorRequest(FloorCommand(channel: "deck")))
        else { throw TestFailure("alice was not granted the floor") }
        let reply = try await bob.talker.peer.request(.emergency(EmergencyRequest(channel: "deck")))
        guard case .emergencyDeclared(let declared) = reply else {
            throw TestFailure("expected emergency-declared, got \(reply.type)")
        }
        #expect(declared.emergency.member.user == "bob")
        // Granted at the emergency's urgency by n1, which had not stored the emergency when the request came: an
        // ordinary request would have been queued or denied behind alice.
        guard case .floorGranted = try await bob.talker.peer.next("floor-granted") else { return }
        guard case .floorRevoked(let revoked) = try await alice.talker.peer.next("floor-revoked") else { return }
        #expect(revoked.cause == .emergency)

        guard case .emergencyDeclared(let told) = try await alice.talker.peer.next("emergency-declared") else { return }
        #expect(told.re == nil && told.emergency == declared.emergency, "alice, on n1, is told as if declared there")

        try await n1.admin.perform(.DELETE, "/api/channels/deck/emergency")
        for (name, peer) in [("alice", alice.talker.peer), ("bob", bob.talker.peer)] {
            guard case .emergencyCleared(let cleared) = try await peer.next("emergency-cleared") else { return }
            #expect(cleared.by == .operator && cleared.name == "operator", "\(name): \(cleared)")
            #expect(cleared.channel.name == "deck")
        }

        // Declared again and cleared by its declarer on n2: alice is told who, as bob's own answer says.
        _ = try await bob.talker.peer.request(.emergency(EmergencyRequest(channel: "deck", level: .imminentPeril)))
        guard case .emergencyDeclared(let again) = try await alice.talker.peer.next("emergency-declared") else {
            return
        }
        #expect(again.emergency.level == .imminentPeril)
        let answer = try await bob.talker.peer.request(.emergencyClear(EmergencyClear(channel: "deck")))
        guard case .emergencyCleared(let byBob) = answer else { throw TestFailure("got \(answer.type)") }
        guard case .emergencyCleared(let told2) = try await alice.talker.peer.next("emergency-cleared") else { return }
        #expect(told2.by == .declarer && told2.name == byBob.name && told2.re == nil, "\(told2)")
        try await Self.stop([n1, n2])
    }

    @Test(
        "the owner wakes a suspended member for an emergency declared on another node, marked emergency, before it has read the stored declaration"
    )
    func emergencyWakeFromAnotherNode() async throws {
        let cluster = try await Self.cluster("n1", "n2", users: ["alice", "bob", "dave"])
        defer { cluster.kill() }
        let (n1, n2) = (cluster.nodes[0], cluster.nodes[1])
        _ = try await cluster.founder("alice", on: n1)
        let bob = try await cluster.member("bob", on: n2)
        // Dave's app is suspended: only his Local Push extension is connected, to n2.
        let dave = try await cluster.connect("dave", on: n2, role: .pushProvider)
        _ = try await dave.join("deck")
        let _: UserStatus = try await n1.admin.put(
            "/api/users/bob/rights", body: UserRightsRequest(rights: [.emergency]))
        _ = try await Self.eventually("n1 can wake dave through n2, and n2 knows bob's right") {
            let detail: ChannelDetail = try await n1.admin.get("/api/channels/deck")
            let users: [UserStatus] = try await n2.admin.get("/api/users")
            return detail.members.first { $0.user == "dave" }?.wakeRoute == .localPush
                && users.first { $0.name == "bob" }?.rights == [.emergency]
        }

        let reply = try await bob.talker.peer.request(.emergency(EmergencyRequest(channel: "deck")))
        guard case .emergencyDeclared(let declared) = reply else { throw TestFailure("got \(reply.type)") }
        guard case .push(let wake) = try await dave.next("push") else { throw TestFailure("not a push") }
        #expect(wake.payload.kind == .emergency, "n1 woke dave for bob's burst as an emergency's")
        #expect(wake.payload.emergency == declared.emergency)
        #expect(wake.payload.activeSpeaker == "bob")
        try await Self.stop([n1, n2])
    }
}
