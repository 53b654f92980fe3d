import Foundation
import PTTProtocol
import ServerTestSupport
import TestSupport
import Testing

/// The walkie-talkie page's controls, errors and words as people met them (issue 23), in chromium against a real
/// `pttd` over HTTPS (Tests/Browser/press_again.py, restart_page.py, page_words.py).
@Suite(
    "Browser page", .serialized, .timeLimit(.minutes(3)),
    .enabled(if: Browser.available, Browser.unavailableReason))
struct BrowserPageTests {
    struct PressAgain: Decodable {
        struct Round: Decodable {
            var gapMs: Int
            var settled: Bool
            var talking: Bool
            var pressed: Bool
            var floor: String
            var speakerText: String
            var sentAfterRelease: [String]
            var receivedAfterRelease: [String]
        }
        var rounds: [Round]
    }

    @Test("the space bar let go and pressed again before floor-idle arrives: a new floor-request, and talking again")
    func pressRightAfterRelease() async throws {
        try await withTestServer(configure: { $0.tls = true }) { server in
            let web = try require_(server.server.runtimeInfo?.webURL)
            let secret = try await server.addUser("jane")
            let seen = try await Browser.run("press_again.py", [web, "jane", secret, "deck"], as: PressAgain.self)
            #expect(seen.rounds.count == 4, "rounds: \(seen.rounds.map(\.gapMs))")
            for round in seen.rounds {
                let what = "\(round.gapMs) ms after the release: \(round)"
                #expect(round.sentAfterRelease.contains("floor-request"), "no floor-request: \(what)")
                #expect(round.settled && round.talking, "not talking again: \(what)")
                #expect(round.pressed && round.floor == "granted", "\(what)")
                #expect(round.speakerText == "You are talking", "\(what)")
            }
        }
    }

    struct Restart: Decodable {
        var shownWhileAway: String
        var channelAfter: String
        var errorAfter: String
        var connectionAfter: String
    }

    @Test("pttd stops and starts again on the same data: the page said so, and the message is gone once back online")
    func errorGoneAfterRestart() async throws {
        let data = TestServer.temporaryDirectory()
        let first = try await TestServer.start(data: data) { $0.tls = true }
        var second: TestServer?
        do {
            let web = try require_(first.server.runtimeInfo?.webURL)
            let port = try require_(URLComponents(string: web)?.port)
            let secret = try await first.addUser("jane")
            let directory = TestServer.temporaryDirectory()
            let (ready, back) = (directory + "/ready", directory + "/back")
            async let result = Browser.run(
                "restart_page.py", [web, "jane", secret, "deck", ready, back], as: Restart.self)
            try await eventually("the page joined", timeout: .seconds(30).scaled) {
                FileManager.default.fileExists(atPath: ready)
            }
            await first.stop()
            // The same data directory and web port (the one the system gave the first): the page reconnects by itself.
            let restarted = try await TestServer.start(data: data) {
                $0.tls = true
                $0.webPort = port
            }
            second = restarted
            // Once the new pttd has the page's WebSocket, "online" in the page is the new server's (not a moment of
            // a connection the old one accepted while it was stopping).
            try await eventually("the page's WebSocket on the new pttd", timeout: .seconds(30).scaled) {
                restarted.localMetric("ptt_web_sessions") >= 1
            }
            _ = FileManager.default.createFile(atPath: back, contents: Data())
            let seen = try await result
            #expect(seen.shownWhileAway.contains("shutting down") || seen.shownWhileAway.contains("restart"))
            #expect(seen.channelAfter == "deck")
            #expect(seen.errorAfter.isEmpty, "still on screen once back online: \(seen.errorAfter)")
            #expect(seen.connectionAfter == "online")
        } catch {
            await first.stop()
            await second?.stop()
            throw error
        }
        await second?.stop()
    }

    struct Words: Decodable {
        var offered: [String]
        var channelsScreen: String
        var signinScreen: String
        var hintVisibleLaptop: Bool
        var hintVisiblePhone: Bool
        var replayVisiblePlain: Bool
        var replayVisibleRecorded: Bool
        var badgeLive: String?
        var badgeRole: String?
        var revokedNote: String
        var revokedButton: String
        var revokedClass: String?
        var kickedMessage: String
        var kickedMessageAfterLateAnswer: String
    }

    @Test(
        "a new user's page: the user's channels offered after the link, plain words, no space bar on a phone, replay only where recorded, the badge announced"
    )
    func wordsAndControls() async throws {
        try await withTestServer(configure: {
            $0.tls = true
            $0.recording.channels = ["bridge"]
        }) { server in
            let web = try require_(server.server.runtimeInfo?.webURL)
            let secret = try await server.addUser("jane")
            // jane's phone is in deck and bridge already; the laptop she opens the link on has never joined anything.
            let phone = try await server.connect("jane", secret: secret, device: "phone")
            _ = try await phone.join("deck")
            _ = try await phone.join("bridge")
            await phone.close()
            let link: SignInLinkResponse = try await server.admin.post(
                "/api/users/jane/links", body: SignInLinkRequest())
            let directory = TestServer.temporaryDirectory()
            async let result = Browser.run(
                "page_words.py", [link.url, web, directory, "deck", "bridge"], as: Words.self, timeout: .seconds(150))
            try await eventually("the page held the floor", timeout: .seconds(60).scaled) {
                FileManager.default.fileExists(atPath: directory + "/granted")
            }
            let member = try String(contentsOfFile: directory + "/granted", encoding: .utf8)
            try await server.admin.perform(.POST, "/api/channels/deck/revoke")
            try await eventually("the page let go", timeout: .seconds(30).scaled) {
                FileManager.default.fileExists(atPath: directory + "/released")
            }
            try await server.admin.perform(.DELETE, "/api/channels/deck/members/\(member)")
            let seen = try await result

            #expect(seen.offered.contains("deck") && seen.offered.contains("bridge"), "offered: \(seen.offered)")
            #expect(seen.hintVisibleLaptop, "the space-bar hint is gone on a laptop")
            #expect(!seen.hintVisiblePhone, "a phone is told to hold the space bar")
            #expect(!seen.replayVisiblePlain, "replay offered on a channel that is not recorded")
            #expect(seen.replayVisibleRecorded, "no replay on a recorded channel")
            #expect(seen.badgeLive == "polite" && seen.badgeRole == "status")
            #expect(
                !seen.revokedButton.contains("Hold to talk"),
                "a revoked member still holding reads \(seen.revokedButton)")
            #expect(seen.revokedClass?.contains("blocked") == true)
            let shown = [
                seen.signinScreen, seen.channelsScreen, seen.revokedNote, seen.revokedButton, seen.kickedMessage,
            ]
            for text in shown {
                for word in Self.protocolWords {
                    #expect(!text.contains(word), "protocol word \(word) on screen: \(text)")
                }
            }
            #expect(seen.revokedNote.contains("operator"), "revoked note: \(seen.revokedNote)")
            #expect(seen.kickedMessage.contains("operator"), "kicked message: \(seen.kickedMessage)")
            #expect(
                seen.kickedMessageAfterLateAnswer == seen.kickedMessage,
                "after a late not-a-member: \(seen.kickedMessageAfterLateAnswer)")
        }
    }

    /// What the page must never show a person: wire codes, commands, and "Secret".
    static let protocolWords = [
        "revoked-by-operator", "end-of-media", "talk-time-exceeded", "preempted", "kicked", "channel-deleted",
        "user-removed", "another-member-has-permission", "queue-full", "only-one-participant", "receive-only",
        "pttctl", "Secret", "floor-",
    ]
}
