import Foundation
import PTTKit
import PTTProtocol
import ServerTestSupport
import TestSupport
import Testing

/// A client chooses its membership's SRTP suite at join; the server keeps it across restarts.
@Suite("SRTP suite chosen at join")
struct MediaSuiteTests {
    @Test(
        "the first offered suite the server speaks is taken, with a key of that suite's length; none spoken is a clear error"
    )
    func negotiation() async throws {
        try await withTestServer { server in
            let secret = try await server.addUser("alice")
            let alice = try await server.connect("alice", secret: secret)
            let plain = try await alice.join("deck")
            #expect(plain.media.suite == "AES_CM_128_HMAC_SHA1_80")
            #expect(try Data(base64Encoded: #require(plain.media.key))?.count == 30)

            let reply = try await alice.request(
                .join(
                    Join(channel: "galley", srtpSuites: ["NOT_A_SUITE", "AEAD_AES_128_GCM", "AES_CM_128_HMAC_SHA1_80"]))
            )
            guard case .joined(let gcm) = reply else { throw TestFailure("expected joined, got \(reply.type)") }
            #expect(gcm.media.suite == "AEAD_AES_128_GCM")
            #expect(try Data(base64Encoded: #require(gcm.media.key))?.count == 28)

            do {
                _ = try await alice.request(.join(Join(channel: "bridge", srtpSuites: ["AES_256_CM_HMAC_SHA1_80"])))
                Issue.record("joined with no suite in common")
            } catch ControlClientError.refused(let error) {
                #expect(error.code == .badRequest)
                #expect(error.message.contains("AEAD_AES_128_GCM") && error.message.contains("AES_CM_128_HMAC_SHA1_80"))
            }
            await alice.close()
        }
    }

    @Test("a membership keeps its suite across a restart, with a new key of the right length")
    func keptAcrossRestart() async throws {
        let data = TestServer.temporaryDirectory()
        let (secret, joined) = try await withTestServer(data: data) { first in
            let secret = try await first.addUser("alice")
            let alice = try await first.connect("alice", secret: secret, device: "radio")
            let reply = try await alice.request(.join(Join(channel: "deck", srtpSuites: ["AEAD_AES_128_GCM"])))
            guard case .joined(let joined) = reply else { throw TestFailure("expected joined, got \(reply.type)") }
            await alice.close()
            return (secret, joined)
        }

        try await withTestServer(data: data) { second in
            let back = try await second.connect("alice", secret: secret, device: "radio")
            let kept = try #require(back.welcome.memberships.first)
            #expect(kept.member.id == joined.member.id)
            #expect(kept.media.suite == "AEAD_AES_128_GCM")
            #expect(kept.media.key != joined.media.key)
            #expect(try Data(base64Encoded: #require(kept.media.key))?.count == 28)
            await back.close()
        }
    }
}
