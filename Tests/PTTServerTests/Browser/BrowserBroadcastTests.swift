import Foundation
import PTTProtocol
import ServerTestSupport
import TestSupport
import Testing

/// A broadcast from the browser walkie-talkie (Tests/Browser/broadcast_pages.py): a page in another channel shows
/// it and is refused the floor while it lasts, and the operator console lists it.
@Suite("Browser broadcasts", .serialized, .timeLimit(.minutes(2)))
struct BrowserBroadcastTests {
    struct Seen: Decodable {
        var bannerA: String
        var bannerB: String
        var speakerB: String
        var deniedB: String
        var consoleChannels: String
        var bannerGoneB: Bool
        var bannerHiddenB: Bool
        var consoleGone: Bool
    }

    @Test(
        "a page broadcasts to every channel: a page in another channel shows it and may not talk, the console lists it, and both clear when it ends",
        .enabled(if: Browser.available, Browser.unavailableReason))
    func broadcastFromAPage() async throws {
        try await withTestServer(configure: { $0.tls = true }) { server in
            let info = try require_(server.server.runtimeInfo)
            let annSecret = try await server.addUser("ann", rights: [.broadcast])
            let bobSecret = try await server.addUser("bob")
            let token = try require_(server.server.adminToken)
            let seen = try await Browser.run(
                "broadcast_pages.py",
                [
                    try require_(info.webURL), "ann", annSecret, "bridge", "bob", bobSecret, "deck", info.adminURL,
                    token,
                ],
                as: Seen.self)
            #expect(seen.bannerA.contains("Broadcasting") && seen.bannerA.contains("deck"), "\(seen.bannerA)")
            #expect(seen.bannerB.contains("Broadcast from ann") && seen.bannerB.contains("bridge"), "\(seen.bannerB)")
            #expect(seen.speakerB.contains("ann"), "\(seen.speakerB)")
            #expect(seen.deniedB.contains("a broadcast is on"), "\(seen.deniedB)")
            #expect(seen.consoleChannels == "bridge, deck", "\(seen.consoleChannels)")
            #expect(seen.bannerGoneB && seen.bannerHiddenB && seen.consoleGone)
            let metrics = try await server.admin.getText("/metrics")
            #expect(metrics.contains(#"ptt_broadcasts_ended_total{reason="released"} 1"#), "\(metrics)")
        }
    }
}
