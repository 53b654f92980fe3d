import Foundation
import PTTProtocol
import ServerTestSupport
import TestSupport
import Testing

/// Signing in as a person meets it, in chromium against `pttd` over HTTPS (Tests/Browser/signin_checks.py).
@Suite(
    "Browser sign-in", .serialized, .timeLimit(.minutes(3)),
    .enabled(if: Browser.available, Browser.unavailableReason))
struct BrowserSignInTests {
    struct Seen: Decodable {
        var addressBar: String?
        var user: String?
        var channel: String?
        var afterReload: String?
        var secondError: String?
        var secondScreen: String?
        var message: String?
        var screen: String?
        var notice: String?
        var signinHidden: Bool?
        var connection: String?
        var signinError: String?
    }

    @Test("a sign-in link signs a browser in once: the page joins, stays signed in; the same link again is refused")
    func linkOnce() async throws {
        try await withTestServer(configure: { $0.tls = true }) { server in
            try await server.addUser("jane")
            let link: SignInLinkResponse = try await server.admin.post(
                "/api/users/jane/links", body: SignInLinkRequest())
            let seen = try await Browser.run("signin_checks.py", ["link", link.url, "deck"], as: Seen.self)
            #expect(seen.user == "jane" && seen.channel == "deck" && seen.afterReload == "deck")
            #expect(seen.addressBar?.contains("link=") == false, "the used link stays in the address bar")
            #expect(seen.secondError?.contains("used already") == true, "second use: \(seen.secondError ?? "-")")
            #expect(seen.secondScreen == "signin")
        }
    }

    @Test("a used link opened again in the browser it signed in: still signed in, told the link was not needed")
    func usedLinkInSignedInBrowser() async throws {
        try await withTestServer(configure: { $0.tls = true }) { server in
            try await server.addUser("jane")
            let link: SignInLinkResponse = try await server.admin.post(
                "/api/users/jane/links", body: SignInLinkRequest())
            let seen = try await Browser.run("signin_checks.py", ["again", link.url, "deck"], as: Seen.self)
            #expect(seen.screen == "talk" && seen.connection == "online", "screen \(seen.screen ?? "-")")
            #expect(seen.channel == "deck")
            #expect(seen.signinError?.isEmpty == true, "sign-in error: \(seen.signinError ?? "-")")
            let notice = seen.notice ?? ""
            #expect(notice.contains("already signed in as jane") && notice.contains("not needed"), "notice: \(notice)")
        }
    }

    @Test("an expired link, and a wrong secret, get a clear message")
    func refusals() async throws {
        let clock = ManualWallClock()
        try await withTestServer(wallClock: clock, configure: { $0.tls = true }) { server in
            try await server.addUser("jane")
            let link: SignInLinkResponse = try await server.admin.post(
                "/api/users/jane/links", body: SignInLinkRequest(ttlSeconds: 60))
            clock.advance(by: 120)
            let expired = try await Browser.run("signin_checks.py", ["expired", link.url], as: Seen.self)
            #expect(expired.message?.contains("expired") == true, "expired link: \(expired.message ?? "-")")
            let web = try require_(server.server.runtimeInfo?.webURL)
            let wrong = try await Browser.run(
                "signin_checks.py", ["wrong", web, "jane", "not-the-secret"], as: Seen.self)
            #expect(
                wrong.message?.hasPrefix("Wrong user name or password") == true, "wrong secret: \(wrong.message ?? "-")"
            )
            #expect(wrong.screen == "signin")
        }
    }

    @Test("a browser without WebCodecs is told what it lacks and what to use instead")
    func noWebCodecs() async throws {
        try await withTestServer(configure: { $0.tls = true }) { server in
            let web = try require_(server.server.runtimeInfo?.webURL)
            let seen = try await Browser.run("signin_checks.py", ["nowebcodecs", web], as: Seen.self)
            #expect(seen.notice?.contains("Missing here: WebCodecs audio") == true, "notice: \(seen.notice ?? "-")")
            #expect(seen.notice?.contains("Safari 26") == true)
            #expect(seen.signinHidden == true)
        }
    }
}
