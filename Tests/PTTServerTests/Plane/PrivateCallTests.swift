import Foundation
import PTTAdmin
import PTTCore
import PTTKit
import PTTProtocol
import ServerTestSupport
import TestSupport
import Testing

@testable import PTTServer

/// Private calls over loopback (Docs/CALLS-DESIGN.md): only the callee's devices ring, one answers, the two talk on
/// a call channel of their own, and nobody else hears a packet of it.
@Suite("Private calls")
struct PrivateCallTests {
    static func place(_ peer: Peer, to user: String) async throws -> CallInfo {
        let reply = try await peer.request(.call(CallRequest(user: user)))
        guard case .callRinging(let ringing) = reply else {
            throw TestFailure("expected call-ringing, got \(reply.type)")
        }
        return ringing.call
    }

    static func incoming(_ peer: Peer) async throws -> CallRinging {
        guard case .callIncoming(let incoming) = try await peer.next("call-incoming") else {
            throw TestFailure("not call-incoming")
        }
        return incoming
    }

    static func ended(_ peer: Peer) async throws -> CallEnded {
        guard case .callEnded(let ended) = try await peer.next("call-ended") else {
            throw TestFailure("not call-ended")
        }
        return ended
    }

    /// `name` joined to deck with its media open, once the relay hears it.
    static func talker(_ server: TestServer, _ name: String, secret: String) async throws -> Talker {
        let peer = try await server.connect(name, secret: secret)
        let joined = try await peer.join("deck")
        let media = try await MediaSession.open(host: "127.0.0.1", parameters: joined.media)
        let deadline = ContinuousClock.now + .seconds(10).scaled
        while ContinuousClock.now < deadline {
            let detail: ChannelDetail = try await server.admin.get("/api/channels/deck")
            if detail.members.first(where: { $0.user == name })?.audioReachable == true { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        return Talker(peer: peer, joined: joined, media: media)
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
        "a call rings only the callee's devices; answered on one, the two talk on their own channel and a third member of their channel hears none of it"
    )
    func ringAnswerTalk() async throws {
        try await withTestServer { server in
            let crew = try await RelayTests.crew(server, ["ann", "carol"])
            let (ann, carol) = (crew[0], crew[1])
            let bobSecret = try await server.addUser("bob")
            let bob = try await Self.talker(server, "bob", secret: bobSecret)
            // Bob's second device, its app connected.
            let tablet = try await server.connect("bob", secret: bobSecret, device: "tablet")
            _ = try await tablet.join("deck")

            let call = try await Self.place(ann.peer, to: "bob")
            #expect(call.callee == "bob" && call.caller.user == "ann")
            for device in [bob.peer, tablet] {
                let incoming = try await Self.incoming(device)
                #expect(incoming.call == call && incoming.waiting == nil)
            }

            let reply = try await bob.peer.request(.callAccept(CallCommand(call: call.id)))
            guard case .callConnected(let bobSide) = reply else { throw TestFailure("got \(reply.type)") }
            guard case .callConnected(let annSide) = try await ann.peer.next("call-connected") else { return }
            #expect(annSide.channel == bobSide.channel && annSide.channel.id.description == call.id)
            #expect(annSide.media.ssrc != ann.joined.media.ssrc, "a call's own SSRC")
            #expect(annSide.media.key != ann.joined.media.key && annSide.media.key != nil, "and its own key")
            let elsewhere = try await Self.ended(tablet)
            #expect(elsewhere.reason == .answeredElsewhere)

            let annCall = try await MediaSession.open(host: "127.0.0.1", parameters: annSide.media)
            let bobCall = try await MediaSession.open(host: "127.0.0.1", parameters: bobSide.media)
            let deadline = ContinuousClock.now + .seconds(10).scaled
            while ContinuousClock.now < deadline {
                let detail: ChannelDetail = try await server.admin.get("/api/channels/\(call.id)")
                if detail.members.count == 2, detail.members.allSatisfy(\.audioReachable) { break }
                try await Task.sleep(for: .milliseconds(10))
            }
            let granted = try await ann.peer.request(.floorRequest(FloorCommand(channel: call.id)))
            #expect(granted.type == "floor-granted")
            let packets = try tonePackets(20)
            async let bobHeard = collect(bobCall, count: packets.count)
            async let carolHeard = collect(carol.media, count: 1, timeout: .seconds(2))
            async let bobDeckHeard = collect(bob.media, count: 1, timeout: .seconds(2))
            var timestamp: UInt32 = 4_000
            for (index, packet) in packets.enumerated() {
                try annCall.send(opus: packet, timestamp: timestamp, marker: index == 0)
                timestamp &+= 960
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(await bobHeard.map(\.payload) == packets, "bob hears the call, every packet")
            #expect(await carolHeard.isEmpty, "carol, in deck with both, hears nothing of the call")
            #expect(await bobDeckHeard.isEmpty, "nor does deck's stream of bob")
            #expect((await carol.peer.pending()).allSatisfy { !$0.type.hasPrefix("call") })

            let hungUp = try await ann.peer.request(.callHangup(CallCommand(call: call.id)))
            guard case .callEnded(let answer) = hungUp else { throw TestFailure("got \(hungUp.type)") }
            #expect(answer.reason == .hungUp && answer.by == "ann")
            let told = try await Self.ended(bob.peer)
            #expect(told.reason == .hungUp && told.by == "ann" && told.re == nil)
            let channels: [ChannelSummary] = try await server.admin.get("/api/channels")
            #expect(channels.map(\.name) == ["deck"], "a call's channel is not listed among the channels")
            try await eventually("the call's channel is removed") {
                do {
                    let _: ChannelDetail = try await server.admin.get("/api/channels/\(call.id)")
                    return false
                } catch let error as AdminError where error.error == "not-found" {
                    return true
                }
            }
            await annCall.close()
            await bobCall.close()
        }
    }

    @Test("a call is declined, rings out, or ends after silence")
    func declineRingOutSilence() async throws {
        // Scaled: a decline or an accept must come before the ring-out, and a sanitized run (4x slower) once took over
        // the unscaled 1 s to answer ("no call ... rings").
        try await withTestServer(configure: {
            $0.calls.ringTimeout = .seconds(3).scaled
            $0.calls.idleTimeout = .seconds(1).scaled
        }) { server in
            let crew = try await RelayTests.crew(server, ["ann", "bob"])
            let (ann, bob) = (crew[0], crew[1])

            let declined = try await Self.place(ann.peer, to: "bob")
            _ = try await Self.incoming(bob.peer)
            let answer = try await bob.peer.request(.callDecline(CallCommand(call: declined.id)))
            #expect(answer.type == "call-ended")
            #expect(try await Self.ended(ann.peer).reason == .declined)

            let unanswered = try await Self.place(ann.peer, to: "bob")
            _ = try await Self.incoming(bob.peer)
            let rangOut = try await Self.ended(ann.peer)
            #expect(rangOut.reason == .noAnswer && rangOut.call == unanswered)
            #expect(try await Self.ended(bob.peer).reason == .noAnswer)

            let quiet = try await Self.place(ann.peer, to: "bob")
            _ = try await Self.incoming(bob.peer)
            _ = try await bob.peer.request(.callAccept(CallCommand(call: quiet.id)))
            let silence = try await Self.ended(ann.peer)
            #expect(silence.reason == .silence && silence.call == quiet)

            let metrics = try await server.admin.getText("/metrics")
            #expect(metricValue(metrics, #"ptt_calls_ended_total{reason="declined"}"#) == 1)
            #expect(metricValue(metrics, #"ptt_calls_ended_total{reason="no-answer"}"#) == 1)
            #expect(metricValue(metrics, #"ptt_calls_ended_total{reason="silence"}"#) == 1)
            #expect(metricValue(metrics, "ptt_calls_connected_total") == 1)
        }
    }

    @Test("a call to oneself, to a user who shares no channel, or from a caller already in a call is refused")
    func refused() async throws {
        try await withTestServer { server in
            let crew = try await RelayTests.crew(server, ["ann", "bob"])
            let (ann, bob) = (crew[0], crew[1])
            let daveSecret = try await server.addUser("dave")
            let dave = try await server.connect("dave", secret: daveSecret)
            _ = try await dave.join("engine")

            #expect(try await Self.refusal(ann.peer, .call(CallRequest(user: "ann"))).code == .badRequest)
            #expect(try await Self.refusal(ann.peer, .call(CallRequest(user: "dave"))).code == .notPermitted)
            #expect(try await Self.refusal(ann.peer, .call(CallRequest(user: "nobody"))).code == .badRequest)
            _ = try await Self.place(ann.peer, to: "bob")
            let busy = try await Self.refusal(bob.peer, .call(CallRequest(user: "ann")))
            #expect(busy.code == .channelBusy, "\(busy.message)")
        }
    }

    @Test("a suspended callee's device is woken once, marked private, with the caller; nobody else is")
    func wakesOnlyTheCallee() async throws {
        try await withTestServer { server in
            let annSecret = try await server.addUser("ann")
            let bobSecret = try await server.addUser("bob")
            let carolSecret = try await server.addUser("carol")
            let ann = try await server.connect("ann", secret: annSecret)
            _ = try await ann.join("deck")
            // Bob's and carol's apps are suspended: only their Local Push extensions are connected.
            let bob = try await server.connect("bob", secret: bobSecret, role: .pushProvider)
            let bobJoined = try await bob.join("deck")
            let carol = try await server.connect("carol", secret: carolSecret, role: .pushProvider)
            _ = try await carol.join("deck")

            let call = try await Self.place(ann, to: "bob")
            guard case .push(let wake) = try await bob.next("push") else { throw TestFailure("not a push") }
            #expect(wake.pushType == .pushToTalk && wake.priority == 10 && wake.expiration == 0)
            #expect(wake.payload.kind == .private && wake.payload.call == call)
            #expect(wake.payload.channel == bobJoined.channel.id, "through bob's iOS channel")
            #expect(wake.payload.activeSpeaker == call.caller.name)
            try await carol.barrier()
            #expect((await carol.pending()).allSatisfy { $0.type != "push" }, "carol is not woken")
        }
    }
}
