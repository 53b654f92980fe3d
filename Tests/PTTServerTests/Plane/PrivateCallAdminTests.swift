import Foundation
import PTTAdmin
import PTTProtocol
import ServerTestSupport
import TestSupport
import Testing

/// Private calls as an operator sees them (`GET /api/calls`, `DELETE /api/calls/ID`), and across a restart.
@Suite("Private calls: the admin API and restarts")
struct PrivateCallAdminTests {
    /// Ann and bob, each with one device joined to deck.
    static func annAndBob(_ server: TestServer) async throws -> (ann: Peer, bob: Peer, secrets: [String]) {
        let secrets = [try await server.addUser("ann"), try await server.addUser("bob")]
        let ann = try await server.connect("ann", secret: secrets[0], device: "radio")
        let bob = try await server.connect("bob", secret: secrets[1], device: "radio")
        _ = try await ann.join("deck")
        _ = try await bob.join("deck")
        return (ann, bob, secrets)
    }

    /// Ann calls bob and bob answers: the call, once both sides are told.
    static func connect(_ ann: Peer, _ bob: Peer) async throws -> CallInfo {
        let call = try await PrivateCallTests.place(ann, to: "bob")
        _ = try await PrivateCallTests.incoming(bob)
        let reply = try await bob.request(.callAccept(CallCommand(call: call.id)))
        guard case .callConnected = reply else { throw TestFailure("expected call-connected, got \(reply.type)") }
        _ = try await ann.next("call-connected")
        return call
    }

    @Test(
        "GET /api/calls lists a call ringing, then connected; DELETE /api/calls/ID ends it with operator to both sides and removes its channel"
    )
    func listAndEnd() async throws {
        try await withTestServer { server in
            let (ann, bob, _) = try await Self.annAndBob(server)
            #expect(try await server.admin.get("/api/calls") as [CallStatus] == [])

            let call = try await PrivateCallTests.place(ann, to: "bob")
            _ = try await PrivateCallTests.incoming(bob)
            let ringing: [CallStatus] = try await server.admin.get("/api/calls")
            #expect(ringing.map(\.id) == [call.id])
            #expect(ringing.first?.phase == .ringing && ringing.first?.caller == "ann")
            #expect(ringing.first?.callee == "bob" && ringing.first?.talking == nil)

            let reply = try await bob.request(.callAccept(CallCommand(call: call.id)))
            guard case .callConnected = reply else { throw TestFailure("expected call-connected, got \(reply.type)") }
            _ = try await ann.next("call-connected")
            let connected: [CallStatus] = try await server.admin.get("/api/calls")
            #expect(connected.first?.phase == .connected && connected.first?.talking == false)

            try await server.admin.perform(.DELETE, "/api/calls/\(call.id)")
            for side in [ann, bob] {
                let ended = try await PrivateCallTests.ended(side)
                #expect(ended.call.id == call.id && ended.reason == .endedByOperator)
            }
            #expect(try await server.admin.get("/api/calls") as [CallStatus] == [])
            try await eventually("the call's channel to be removed") {
                (try? await server.admin.get("/api/channels/\(call.id)") as ChannelDetail) == nil
            }
            do {
                try await server.admin.perform(.DELETE, "/api/calls/\(call.id)")
                Issue.record("ended a call that is over")
            } catch let error as AdminError {
                #expect(error.code == .notFound)
            }
        }
    }

    @Test(
        "a connected call is kept across a restart: listed connected with its caller, in both sides' welcome, and ended by a hang-up"
    )
    func keptAcrossRestart() async throws {
        let data = TestServer.temporaryDirectory()
        let (call, secrets) = try await withTestServer(data: data) { first in
            let (ann, bob, secrets) = try await Self.annAndBob(first)
            let call = try await Self.connect(ann, bob)
            await ann.close()
            await bob.close()
            return (call, secrets)
        }

        try await withTestServer(data: data) { second in
            let listed: [CallStatus] = try await second.admin.get("/api/calls")
            #expect(listed.map(\.id) == [call.id])
            #expect(listed.first?.phase == .connected)
            #expect(listed.first?.caller == "ann" && listed.first?.callee == "bob", "the caller is the oldest member")
            let ann = try await second.connect("ann", secret: secrets[0], device: "radio")
            let bob = try await second.connect("bob", secret: secrets[1], device: "radio")
            for side in [ann, bob] {
                #expect(side.welcome.memberships.contains { $0.channel.id == call.id }, "the call's membership")
            }
            let reply = try await bob.request(.callHangup(CallCommand(call: call.id)))
            guard case .callEnded(let ended) = reply else {
                throw TestFailure("expected call-ended, got \(reply.type)")
            }
            #expect(ended.reason == .hungUp && ended.by == "bob")
            #expect(try await PrivateCallTests.ended(ann).reason == .hungUp)
            #expect(try await second.admin.get("/api/calls") as [CallStatus] == [])
        }
    }
}
