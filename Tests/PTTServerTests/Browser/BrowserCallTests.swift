import Foundation
import PTTProtocol
import ServerTestSupport
import TestSupport
import Testing

/// A private call from the browser walkie-talkie (Tests/Browser/call_pages.py): it rings only the callee's page and
/// shows in the operator console; answered, the two pages talk and a third page of the same channel hears nothing;
/// hung up, both pages are back in the channel.
@Suite("Browser calls", .serialized, .timeLimit(.minutes(2)))
struct BrowserCallTests {
    struct Seen: Decodable {
        var callButtonForSelf: Bool
        var callingA: String
        var incomingB: String
        var answerShownB: Bool
        var consoleRinging: String
        var ringingC: Bool
        var titleA: String
        var bannerA: String
        var titleB: String
        var bannerB: String
        var heardB: Bool
        var consoleConnected: String
        var sentA: Int
        var receivedB: Int
        var receivedC: Int
        var backInA: String
        var backInB: String
        var endedB: String
        var consoleEmpty: Bool
    }

    @Test(
        "a page calls a member: only the callee's page rings, the console lists it, the callee hears the call and a third page none of it; hung up, both are back in the channel",
        .enabled(if: Browser.available, Browser.unavailableReason))
    func callFromAPage() async throws {
        try await withTestServer(configure: { $0.tls = true }) { server in
            let info = try require_(server.server.runtimeInfo)
            let secrets = [
                try await server.addUser("ann"), try await server.addUser("bob"), try await server.addUser("carol"),
            ]
            let token = try require_(server.server.adminToken)
            let seen = try await Browser.run(
                "call_pages.py",
                [
                    try require_(info.webURL), "ann", secrets[0], "bob", secrets[1], "carol", secrets[2], "deck",
                    info.adminURL, token,
                ],
                as: Seen.self)
            #expect(!seen.callButtonForSelf, "a page offers to call its own user")
            #expect(seen.callingA == "Calling bob…", "\(seen.callingA)")
            #expect(seen.incomingB.hasPrefix("ann is calling you") && seen.answerShownB, "\(seen.incomingB)")
            #expect(seen.consoleRinging == "ringing")
            #expect(!seen.ringingC, "carol's page rang")
            #expect(seen.titleA == "Call with bob" && seen.titleB == "Call with ann", "\(seen.titleA), \(seen.titleB)")
            #expect(seen.bannerB.contains("Private call with ann"), "\(seen.bannerB)")
            #expect(seen.heardB, "bob heard \(seen.receivedB) of the \(seen.sentA) packets ann sent")
            #expect(seen.consoleConnected.hasPrefix("connected"), "\(seen.consoleConnected)")
            #expect(seen.receivedC == 0, "carol's page received \(seen.receivedC) packets of the call")
            #expect(seen.backInA == "deck" && seen.backInB == "deck")
            #expect(seen.endedB == "ann hung up.", "\(seen.endedB)")
            #expect(seen.consoleEmpty)
            let metrics = try await server.admin.getText("/metrics")
            #expect(metrics.contains(#"ptt_calls_ended_total{reason="hung-up"} 1"#), "\(metrics)")
        }
    }
}
