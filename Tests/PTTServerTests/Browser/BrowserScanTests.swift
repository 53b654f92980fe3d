import Foundation
import PTTAdmin
import PTTProtocol
import ServerTestSupport
import TestSupport
import Testing

/// Scanning from the browser walkie-talkie (Tests/Browser/scan_pages.py): with deck open, the page ticks bridge under
/// "Also hear"; a burst on bridge reaches the page and the page says it hears bridge; the console marks the scan.
@Suite("Browser scan lists", .serialized, .timeLimit(.minutes(2)))
struct BrowserScanTests {
    struct Seen: Decodable {
        var openChannel: String
        var consoleTag: Bool
        var note: String
        var packetsReceived: Int
    }

    @Test(
        "a page with deck open also hears bridge once it ticks it, and says so; the console shows the scan",
        .enabled(if: Browser.available, Browser.unavailableReason))
    func scanFromAPage() async throws {
        try await withTestServer(configure: {
            $0.tls = true
            $0.implicitFloorRequest = false
        }) { server in
            let info = try require_(server.server.runtimeInfo)
            let bobSecret = try await server.addUser("bob")
            let token = try require_(server.server.adminToken)
            let cap = try await BroadcastTests.member(server, "cap", in: ["bridge"])[0]
            async let seen = Browser.run(
                "scan_pages.py",
                [try require_(info.webURL), "bob", bobSecret, "bridge", "deck", info.adminURL, token], as: Seen.self)
            // Cap talks on bridge once the page's scan list is set (the server shows bob's bridge second in it).
            try await eventually("bob's page scans bridge", timeout: .seconds(60).scaled) {
                let bridge: ChannelDetail = try await server.admin.get("/api/channels/bridge")
                return bridge.members.first { $0.user == "bob" }?.scanRank == 2
            }
            try await ScanTests.talk(cap, try tonePackets(50), start: 0x1000_0000)
            let result = try await seen
            #expect(result.openChannel == "deck")
            #expect(result.consoleTag, "the console shows bob's bridge membership as scanned")
            #expect(result.note.contains("Hearing bridge"), "\(result.note)")
            #expect(result.packetsReceived >= 20)
            _ = try await cap.peer.request(.floorRelease(FloorCommand(channel: "bridge")))
            await cap.media.close()
        }
    }
}
