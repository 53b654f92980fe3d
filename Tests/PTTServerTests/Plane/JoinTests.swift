import Foundation
import PTTKit
import PTTProtocol
import ServerTestSupport
import TestSupport
import Testing

@Suite("Joining channels over a real control connection")
struct JoinTests {
    @Test("join answers joined with media parameters and tells the other members")
    func joinTellsOthers() async throws {
        try await withTestServer { server in
            let aliceSecret = try await server.addUser("alice")
            let bobSecret = try await server.addUser("bob")
            let alice = try await server.connect("alice", secret: aliceSecret)
            let bob = try await server.connect("bob", secret: bobSecret)

            let aliceJoined = try await alice.join("deck")
            #expect(aliceJoined.channel.name == "deck")
            #expect(aliceJoined.member.user == "alice")
            #expect(aliceJoined.media.ssrc != 0)
            #expect(aliceJoined.media.security == .srtp)
            #expect(aliceJoined.media.suite == "AES_CM_128_HMAC_SHA1_80")
            #expect(Data(base64Encoded: aliceJoined.media.key ?? "")?.count == 30)
            #expect(aliceJoined.floor.state == .idle)

            let bobJoined = try await bob.join("deck", name: "Bob on deck")
            #expect(bobJoined.channel.id == aliceJoined.channel.id)
            #expect(Set(bobJoined.members.map(\.user)) == ["alice", "bob"])
            #expect(bobJoined.media.ssrc != aliceJoined.media.ssrc)

            let event = try await alice.next("member-joined")
            guard case .memberJoined(let joined) = event else { throw TestFailure("expected member-joined") }
            #expect(joined.member.name == "Bob on deck")
            #expect(joined.member.id == bobJoined.member.id)
        }
    }

    @Test("joining again keeps member id, SSRC and key; leave ends the membership and tells the others")
    func rejoinAndLeave() async throws {
        try await withTestServer { server in
            let secret = try await server.addUser("alice")
            let bobSecret = try await server.addUser("bob")
            let alice = try await server.connect("alice", secret: secret)
            let bob = try await server.connect("bob", secret: bobSecret)
            let first = try await alice.join("deck", pushToken: "aabbcc")
            _ = try await bob.join("deck")
            let second = try await alice.join("deck")
            #expect(second.member.id == first.member.id)
            #expect(second.media.ssrc == first.media.ssrc)
            #expect(second.media.key != first.media.key, "every join brings a new SRTP key")

            let left = try await alice.request(.leave(Leave(channel: "deck")))
            guard case .left(let l) = left else { throw TestFailure("expected left, got \(left.type)") }
            #expect(l.reason == .left)
            let event = try await bob.next("member-left")
            guard case .memberLeft(let gone) = event else { throw TestFailure("expected member-left") }
            #expect(gone.member.id == first.member.id)

            let detail: ChannelDetail = try await server.admin.get("/api/channels/deck")
            #expect(detail.members.map(\.user) == ["bob"])
        }
    }

    @Test("requests about a channel one is not in, or that does not exist, get clear errors")
    func notAMember() async throws {
        try await withTestServer(configure: { $0.createChannelsOnJoin = false }) { server in
            let secret = try await server.addUser("alice")
            let alice = try await server.connect("alice", secret: secret)
            await #expect(throws: ControlClientError.self) { _ = try await alice.join("nowhere") }
            do {
                _ = try await alice.join("nowhere")
            } catch ControlClientError.refused(let error) {
                #expect(error.code == .noSuchChannel)
            }
            _ = try await server.admin.post(
                "/api/channels", body: CreateChannelRequest(name: "deck"), as: ChannelSummary.self)
            do {
                _ = try await alice.request(.floorRequest(FloorCommand(channel: "deck")))
                Issue.record("a floor request from a non-member succeeded")
            } catch ControlClientError.refused(let error) {
                #expect(error.code == .notAMember)
            }
            _ = try await alice.join("deck")
            do {
                _ = try await alice.request(.pushToken(PushToken(channel: "deck", token: "xyz")))
                Issue.record("a non-hex token was accepted")
            } catch ControlClientError.refused(let error) {
                #expect(error.code == .badRequest)
            }
            let ok = try await alice.request(
                .pushToken(PushToken(channel: "deck", token: "00ff" + String(repeating: "ab", count: 97))))
            #expect(ok.type == "push-token-registered")
            let detail: ChannelDetail = try await server.admin.get("/api/channels/deck")
            #expect(detail.members.first?.pushToken == true)
        }
    }
}
