import Foundation
import PTTCore
import PTTKit
import PTTProtocol
import PTTServer
import RTP
import ServerTestSupport
import TestSupport
import Testing

@Suite("Announcements: stored, delivered on reconnect until they expire")
struct AnnouncementTests {
    static func announce(
        _ server: TestServer, _ text: String, collapse: String? = nil, ttl: Int? = nil
    ) async throws -> AnnounceResponse {
        try await server.admin.post(
            "/api/channels/deck/announce", body: AnnounceRequest(text: text, collapseId: collapse, ttlSeconds: ttl))
    }

    @Test("an announcement reaches a member that reconnects within its expiry, and not one that reconnects after")
    func expiry() async throws {
        let clock = ManualWallClock()
        try await withTestServer(wallClock: clock) { server in
            let annSecret = try await server.addUser("ann")
            let bobSecret = try await server.addUser("bob")
            for (user, secret) in [("ann", annSecret), ("bob", bobSecret)] {
                let peer = try await server.connect(user, secret: secret)
                _ = try await peer.join("deck")
                await peer.close()
            }
            let announced = clock.now()
            let response = try await Self.announce(server, "Muster at station 5", ttl: 60)
            #expect(response.members == 2)
            #expect(response.replaced == 0)

            let ann = try await server.connect("ann", secret: annSecret)
            guard case .push(let frame) = try await ann.next("push") else { throw TestFailure("not a push") }
            #expect(frame.pushType == .alert)
            #expect(frame.priority == 5)
            #expect(frame.payload.announcement == "Muster at station 5")
            #expect(frame.payload.aps.alert?.body == "Muster at station 5")
            // 60 s from the announcement, in whole seconds rounded up: between the moment the test asked and the moment ann got it
            // (under ThreadSanitizer, ann's connection alone took more than 5 s).
            let expiresAt = TimeInterval(frame.expiration)
            let window = (announced.timeIntervalSince1970 + 60)...(clock.now().timeIntervalSince1970 + 61)
            #expect(window.contains(expiresAt), "expires at \(expiresAt), not 60 s after the announcement: \(window)")
            ann.client.send(.pushAck(PushAck(id: frame.id)))
            try await ann.barrier()

            clock.advance(by: 61)
            let bob = try await server.connect("bob", secret: bobSecret)
            try await bob.barrier()
            #expect(pushes(await bob.pending()).isEmpty)

            // Acknowledged: not delivered again to ann either.
            await ann.close()
            let annAgain = try await server.connect("ann", secret: annSecret)
            try await annAgain.barrier()
            #expect(pushes(await annAgain.pending()).isEmpty)

            let totals: WakeTotals = try await server.admin.get("/api/wakes")
            #expect(wakeCount(totals, .announce, .localPush, .acknowledged) == 1)
            #expect(wakeCount(totals, .announce, .unreachable, .expired, "ttl") == 1)
            #expect(totals.storedAnnouncements == 0)
            await bob.close()
            await annAgain.close()
        }
    }

    @Test("stored announcements survive a restart; a newer one with the same collapse id replaces the older")
    func restartAndCollapse() async throws {
        let data = TestServer.temporaryDirectory()
        let secret = try await withTestServer(data: data) { first in
            let secret = try await first.addUser("bob")
            let bob = try await first.connect("bob", secret: secret)
            _ = try await bob.join("deck")
            await bob.close()
            _ = try await Self.announce(first, "Muster at station 4", collapse: "muster")
            let replacing = try await Self.announce(first, "Muster at station 5", collapse: "muster")
            #expect(replacing.replaced == 1)
            _ = try await Self.announce(first, "Galley closes at 22:00")
            return secret
        }

        try await withTestServer(data: data) { second in
            let bobAgain = try await second.connect("bob", secret: secret)
            let one = try await bobAgain.next("push")
            let two = try await bobAgain.next("push")
            try await bobAgain.barrier()
            let texts = [one, two].compactMap { if case .push(let f) = $0 { f.payload.announcement } else { nil } }
            #expect(texts == ["Muster at station 5", "Galley closes at 22:00"])
            #expect(pushes(await bobAgain.pending()).isEmpty)
            // Not acknowledged: delivered again on the next connection.
            await bobAgain.close()
            let third = try await second.connect("bob", secret: secret)
            _ = try await third.next("push")
            _ = try await third.next("push")
            await third.close()
        }
    }

    @Test("bad announcements are refused with a clear error")
    func refused() async throws {
        try await withTestServer { server in
            _ = try await server.admin.post("/api/channels", body: CreateChannelRequest(name: "deck")) as ChannelSummary
            for (request, fragment) in [
                (AnnounceRequest(text: "  "), "text"), (AnnounceRequest(text: "x", ttlSeconds: 0), "ttlSeconds"),
                (AnnounceRequest(text: "x", ttlSeconds: 31 * 86_400), "ttlSeconds"),
                (AnnounceRequest(text: String(repeating: "é", count: 600)), "text"),
                (AnnounceRequest(text: "x", collapseId: String(repeating: "c", count: 65)), "collapseId"),
            ] {
                do {
                    let _: AnnounceResponse = try await server.admin.post("/api/channels/deck/announce", body: request)
                    Issue.record("accepted \(request)")
                } catch let error as AdminError {
                    #expect(error.code == .badRequest)
                    #expect(error.message.contains(fragment))
                }
            }
            do {
                let _: AnnounceResponse = try await server.admin.post(
                    "/api/channels/nowhere/announce", body: AnnounceRequest(text: "x"))
                Issue.record("accepted an unknown channel")
            } catch let error as AdminError {
                #expect(error.code == .notFound)
            }
        }
    }
}
