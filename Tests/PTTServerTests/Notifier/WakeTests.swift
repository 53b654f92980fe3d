import Foundation
import PTTCore
import PTTKit
import PTTProtocol
import PTTServer
import RTP
import ServerTestSupport
import TestSupport
import Testing

@Suite("Wakes over Local Push connections on loopback")
struct WakeTests {
    /// A floor that stays taken without media, so a test controls when the burst ends.
    static func quietFloor(_ c: inout ServerConfiguration) { c.floor.endOfMediaTimeout = .seconds(60) }

    @Test("a member with only a push-provider connection gets exactly one wake per talk burst, none per packet")
    func oneWakePerBurst() async throws {
        // Explicit floor requests only: audio the relay reads after the release (a relay lagging behind, as
        // under a sanitizer) would otherwise be an implicit request on the idle floor, so a second burst.
        try await withTestServer(configure: { $0.implicitFloorRequest = false }) { server in
            let ann = try await RelayTests.crew(server, ["ann"])[0]
            let bobSecret = try await server.addUser("bob")
            let bob = try await server.connect("bob", secret: bobSecret, device: "bob-phone", role: .pushProvider)
            let bobJoined = try await bob.join("deck", name: "Bob")
            #expect(try await member(server, "deck", user: "bob").wakeRoute == .localPush)

            // A talk burst of 25 packets: explicit request, audio, release.
            let packets = try tonePackets(25)
            guard case .floorGranted = try await ann.peer.request(.floorRequest(FloorCommand(channel: "deck"))) else {
                throw TestFailure("floor not granted")
            }
            let sendStart = Date()
            try await RelayTests().burst(ann, packets)
            _ = try await ann.peer.request(.floorRelease(FloorCommand(channel: "deck")))
            _ = try await ann.peer.next("floor-idle")
            try await bob.barrier()

            guard case .push(let wake) = try await bob.next("push") else { throw TestFailure("not a push") }
            let later = pushes(await bob.pending())
            try #require(later.isEmpty, "expected one wake, got \(later.count + 1)")
            #expect(wake.pushType == .pushToTalk)
            #expect(wake.priority == 10)
            #expect(wake.expiration == 0)
            #expect(wake.payload.aps == APS())
            #expect(wake.payload.channel == bobJoined.channel.id)
            #expect(wake.payload.activeSpeaker == "ann")
            let burst = try #require(wake.payload.burst)
            #expect(burst.count == 16)
            let sent = Date(timeIntervalSince1970: Double(wake.payload.sentAt) / 1000)
            #expect(abs(sent.timeIntervalSince(sendStart)) < 5 * TestTimeouts.scale)

            // A second burst is a second wake, with another burst id.
            guard case .floorGranted = try await ann.peer.request(.floorRequest(FloorCommand(channel: "deck"))) else {
                throw TestFailure("floor not granted again")
            }
            let second = try await bob.next("push")
            guard case .push(let again) = second else { throw TestFailure("not a push") }
            #expect(again.payload.burst != burst)
            _ = try await ann.peer.request(.floorRelease(FloorCommand(channel: "deck")))
            _ = try await ann.peer.next("floor-idle")
            try await bob.barrier()
            #expect(pushes(await bob.pending()).isEmpty)

            let totals: WakeTotals = try await server.admin.get("/api/wakes")
            #expect(wakeCount(totals, .wake, .localPush, .sent) == 2)
            #expect(totals.counts.allSatisfy { $0.outcome == .sent })
            let status = try await member(server, "deck", user: "bob")
            #expect(status.lastWake?.outcome == .sent)
            #expect(status.lastWake?.transport == .localPush)
            #expect(status.lastWake?.burst == again.payload.burst)
            // The speaker, reachable by audio, is never woken.
            #expect(try await member(server, "deck", user: "ann").lastWake == nil)
            await ann.media.close()
        }
    }

    @Test("a member that is not connected is not woken later: the wake expires at once and stays expired")
    func zeroExpiry() async throws {
        try await withTestServer(configure: WakeTests.quietFloor) { server in
            let annSecret = try await server.addUser("ann")
            let bobSecret = try await server.addUser("bob")
            let ann = try await server.connect("ann", secret: annSecret)
            _ = try await ann.join("deck")
            let bobFirst = try await server.connect("bob", secret: bobSecret, device: "bob-phone", role: .pushProvider)
            _ = try await bobFirst.join("deck")
            await bobFirst.close()
            // Wait until the server has seen the close (the member shows no connection).
            let deadline = ContinuousClock.now + .seconds(10).scaled
            while try await !member(server, "deck", user: "bob").connections.isEmpty {
                guard ContinuousClock.now < deadline else { throw TestFailure("bob's connection never closed") }
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(try await member(server, "deck", user: "bob").wakeRoute == .unreachable)

            guard case .floorGranted = try await ann.request(.floorRequest(FloorCommand(channel: "deck"))) else {
                throw TestFailure("floor not granted")
            }
            // The decision is made in the plane's turn that grants the floor (the grant leaves first, at once): the
            // admin API, read on the plane's loop after that turn, counts it.
            let totals: WakeTotals = try await server.admin.get("/api/wakes")
            #expect(wakeCount(totals, .wake, .unreachable, .expired, "no-route") == 1)
            #expect(totals.pending == 0)

            // Bob's Local Push extension reconnects while the burst still runs: nothing is delivered late.
            let bobAgain = try await server.connect("bob", secret: bobSecret, device: "bob-phone", role: .pushProvider)
            try await bobAgain.barrier()
            #expect(pushes(await bobAgain.pending()).isEmpty)
            let status = try await member(server, "deck", user: "bob")
            #expect(status.lastWake?.outcome == .expired)
            #expect(status.lastWake?.reason == "no-route")
            #expect(status.wakeRoute == .localPush)
            await ann.close()
            await bobAgain.close()
        }
    }

    @Test("a kicked member without its app connected gets a leaveChannel push on its Local Push connection")
    func leaveOnKick() async throws {
        try await withTestServer { server in
            let bobSecret = try await server.addUser("bob")
            let bob = try await server.connect("bob", secret: bobSecret, device: "bob-phone", role: .pushProvider)
            let joined = try await bob.join("deck")
            let carolSecret = try await server.addUser("carol")
            let carol = try await server.connect("carol", secret: carolSecret)
            _ = try await carol.join("deck")
            await carol.close()
            // Her close reaches the server on its own time (seen late under ThreadSanitizer): until it does, she
            // is still connected and is told on her connection, with no push.
            try await eventually("the server sees carol gone") {
                let detail: ChannelDetail = try await server.admin.get("/api/channels/deck")
                return detail.members.contains { $0.user == "carol" && !$0.connected }
            }

            try await server.admin.perform(.DELETE, "/api/channels/deck/members/bob")
            let message = try await bob.next("push")
            guard case .push(let leave) = message else { throw TestFailure("not a push") }
            #expect(leave.pushType == .pushToTalk)
            #expect(leave.priority == 10)
            #expect(leave.expiration == 0)
            #expect(leave.payload.leaveChannel == true)
            #expect(leave.payload.reason == .kicked)
            #expect(leave.payload.channel == joined.channel.id)

            // Carol has no connection and no token: her leave (channel deleted) expires, counted.
            try await server.admin.perform(.DELETE, "/api/channels/deck")
            let deadline = ContinuousClock.now + .seconds(10).scaled
            while true {
                let totals: WakeTotals = try await server.admin.get("/api/wakes")
                if wakeCount(totals, .leave, .localPush, .sent) == 1,
                    wakeCount(totals, .leave, .unreachable, .expired, "no-route") == 1
                {
                    break
                }
                guard ContinuousClock.now < deadline else {
                    throw TestFailure("leave pushes not counted: \(totals.counts)")
                }
                try await Task.sleep(for: .milliseconds(10))
            }
            await bob.close()
        }
    }
}
