import Foundation
import PTTProtocol
import ServerTestSupport
import TestSupport
import Testing

/// Hostile input on the web listener's WebSocket, from a page (Tests/Browser/socket_checks.py): each bad socket
/// gets a clear error or is closed, is counted, and nothing else is affected.
@Suite(
    "Browser sockets", .serialized, .timeLimit(.minutes(2)),
    .enabled(if: Browser.available, Browser.unavailableReason))
struct BrowserSocketTests {
    struct Message: Decodable {
        var type: String
        var code: String?
        var message: String?
    }
    struct Case: Decodable {
        var messages: [Message]
        var closeCode: Int?
        var timedOut: Bool?
    }
    struct Seen: Decodable {
        var garbage: Case
        var silent: Case
        var junk: Case
        var huge: Case
    }

    @Test("not JSON, no hello, junk audio, a spoofed SSRC, an oversized message: each answered or closed, and counted")
    func hostileSockets() async throws {
        try await withTestServer(configure: {
            $0.tls = true
            $0.limits.helloTimeout = .milliseconds(700)
        }) {
            server in
            let web = try require_(server.server.runtimeInfo?.webURL)
            let crew = try await RelayTests.crew(server, ["alice"])
            let malorySecret = try await server.addUser("malory")
            let seen = try await Browser.run(
                "socket_checks.py", [web, "malory", malorySecret, "deck", "\(crew[0].joined.media.ssrc)"], as: Seen.self
            )

            #expect(seen.garbage.messages.first?.code == "malformed-frame", "\(seen.garbage.messages)")
            #expect(seen.garbage.closeCode != nil && seen.garbage.timedOut == nil)
            #expect(seen.silent.messages.first?.code == "not-authenticated", "\(seen.silent.messages)")
            #expect(seen.silent.timedOut == nil)
            #expect(seen.junk.messages.contains { $0.type == "presence-report" }, "the connection kept working")
            #expect(seen.huge.closeCode == 1009, "oversized message closed with \(seen.huge.closeCode ?? -1)")

            #expect(try await server.metric(#"ptt_web_media_dropped_total{reason="malformed"}"#) == 1)
            #expect(try await server.metric(#"ptt_web_media_dropped_total{reason="unknown-ssrc"}"#) == 1)
            #expect(try await server.metric(#"ptt_web_media_packets_total{direction="to-relay"}"#) == 0)
            // alice's stream is untouched: the relay never saw the spoofed packet.
            #expect(try await server.metric(#"ptt_media_packets_forwarded_total"#) == 0)
        }
    }
}
