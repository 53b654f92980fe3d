import Foundation
import PTTProtocol
import ServerTestSupport
import TestSupport
import Testing

/// An emergency declared from the browser walkie-talkie (Tests/Browser/emergency_pages.py): another page and the
/// operator console show it, the console's alert stays until acknowledged, and the declarer's page ends it.
@Suite("Browser emergencies", .serialized, .timeLimit(.minutes(2)))
struct BrowserEmergencyTests {
    struct Seen: Decodable {
        var refusal: String
        var bannerAfterRefusal: Bool
        var bannerA: String
        var clearShownA: Bool
        var bannerB: String
        var clearShownB: Bool
        var alert: String
        var tag: String
        var alertAfterPolls: Bool
        var alertAcknowledged: Bool
        var tagAfterAcknowledge: Bool
        var endedB: String
        var bannerHiddenB: Bool
        var consoleCleared: Bool
    }

    @Test(
        "a page declares an emergency: the other page and the console show it until it ends; a page without the right is told why",
        .enabled(if: Browser.available, Browser.unavailableReason))
    func declaredFromAPage() async throws {
        try await withTestServer(configure: { $0.tls = true }) { server in
            let info = try require_(server.server.runtimeInfo)
            let annSecret = try await server.addUser("ann", rights: [.emergency])
            let bobSecret = try await server.addUser("bob")
            let token = try require_(server.server.adminToken)
            let seen = try await Browser.run(
                "emergency_pages.py",
                [try require_(info.webURL), "ann", annSecret, "bob", bobSecret, "deck", info.adminURL, token],
                as: Seen.self)
            #expect(seen.refusal.contains("ask your operator"), "\(seen.refusal)")
            #expect(!seen.bannerAfterRefusal)
            #expect(seen.bannerA.contains("you declared it") && seen.clearShownA, "\(seen.bannerA)")
            #expect(seen.bannerB.contains("ann needs help") && !seen.clearShownB, "\(seen.bannerB)")
            #expect(seen.alert.contains("EMERGENCY on deck") && seen.alert.contains("ann"), "\(seen.alert)")
            #expect(seen.tag == "EMERGENCY")
            #expect(seen.alertAfterPolls, "the alert went before it was acknowledged")
            #expect(seen.alertAcknowledged && seen.tagAfterAcknowledge)
            #expect(seen.endedB.contains("ended it"), "\(seen.endedB)")
            #expect(seen.bannerHiddenB && seen.consoleCleared)
            let metrics = try await server.admin.getText("/metrics")
            #expect(metrics.contains(#"ptt_emergencies_cleared_total{by="declarer"} 1"#))
        }
    }
}
