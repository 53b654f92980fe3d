import Foundation
import PTTKit
import PTTProtocol
import ServerTestSupport
import Testing

@Suite("State kept across restarts")
struct RestartTests {
    @Test("channels, users, memberships and push tokens survive a restart; floor state does not")
    func restartKeepsEverything() async throws {
        let data = TestServer.temporaryDirectory()
        let (secret, joined) = try await withTestServer(data: data) { first in
            let secret = try await first.addUser("alice", priority: 3)
            _ = try await first.admin.post(
                "/api/channels", body: CreateChannelRequest(name: "bridge", imageURL: "http://ship.local/bridge.png"),
                as: ChannelSummary.self)
            let alice = try await first.connect("alice", secret: secret, device: "phone-1")
            let joined = try await alice.join("bridge", name: "Captain", pushToken: "0badc0de")
            _ = try await alice.request(.floorRequest(FloorCommand(channel: "bridge")))
            await alice.close()
            return (secret, joined)
        }

        try await withTestServer(data: data) { second in
            let channels: [ChannelSummary] = try await second.admin.get("/api/channels")
            #expect(channels.map(\.name) == ["bridge"])
            #expect(channels.first?.imageURL == "http://ship.local/bridge.png")
            #expect(channels.first?.floor == .idle)
            let detail: ChannelDetail = try await second.admin.get("/api/channels/bridge")
            let member = try #require(detail.members.first)
            #expect(member.id == joined.member.id)
            #expect(member.name == "Captain")
            #expect(member.priority == 3)
            #expect(member.pushToken)
            #expect(member.connected == false)

            // The same secret still works, and the device finds its membership with the same SSRC (and a new key).
            let back = try await second.connect("alice", secret: secret, device: "phone-1")
            let kept = try #require(back.welcome.memberships.first)
            #expect(kept.member.id == joined.member.id)
            #expect(kept.media.ssrc == joined.media.ssrc)
            #expect(kept.media.key != joined.media.key, "media keys are new after a restart")
            #expect(kept.channel.id == joined.channel.id)
        }
    }
}
