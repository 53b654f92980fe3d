import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import PTTKit
import PTTProtocol
import ServerTestSupport
import TestSupport
import Testing

@testable import PTTServer

/// The web listener without a browser: its files and headers, sign-in links over HTTP, deadlines, and the
/// listener switched off.
@Suite("Web listener")
struct WebListenerTests {
    /// A GET or POST to the web listener; the answer's status, headers and body.
    static func request(
        _ url: String, method: HTTPMethod = .GET, body: String? = nil
    ) async throws -> (status: Int, headers: HTTPHeaders, body: String) {
        var request = HTTPClientRequest(url: url)
        request.method = method
        if let body {
            request.headers.add(name: "content-type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: body))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        return (Int(response.status.code), response.headers, String(buffer: bytes))
    }

    @Test("the page and its scripts are served with security headers and no token; other paths are refused")
    func files() async throws {
        try await withTestServer { server in
            let web = try require_(server.server.runtimeInfo?.webURL)
            let page = try await Self.request(web + "/")
            #expect(page.status == 200)
            #expect(page.headers["content-type"].first?.hasPrefix("text/html") == true)
            #expect(page.headers["content-security-policy"].first?.contains("default-src 'self'") == true)
            #expect(page.headers["x-frame-options"].first == "DENY")
            #expect(page.body.contains("Hold to talk"))
            for path in [
                "/app.js", "/app-state.js", "/app-control.js", "/app-channels.js", "/app-talk.js", "/app-audio.js",
                "/app-view.js", "/capture-worklet.js", "/playback-worklet.js", "/onset-detector.js",
            ] {
                let script = try await Self.request(web + path)
                #expect(
                    script.status == 200 && script.headers["content-type"].first?.hasPrefix("text/javascript") == true)
            }
            #expect(
                try await Self.request(web + "/app.css").headers["content-type"].first?.hasPrefix("text/css") == true)
            #expect(try await Self.request(web + "/admin-token").status == 404)
            #expect(try await Self.request(web + "/../pttd.sqlite").status == 404)
            #expect(try await Self.request(web + "/", method: .DELETE).status == 405)
            #expect(try await Self.request(web + "/api/channels").status == 404, "the admin API is not on the web port")
        }
    }

    @Test("a sign-in link works once, gives a credential of its own, expires, and goes with its user")
    func signInLinks() async throws {
        let clock = ManualWallClock()
        let data = TestServer.temporaryDirectory()
        var browserSecret = ""
        try await withTestServer(data: data, wallClock: clock) { server in
            let web = try require_(server.server.runtimeInfo?.webURL)
            let janeSecret = try await server.addUser("jane")
            let link: SignInLinkResponse = try await server.admin.post(
                "/api/users/jane/links", body: SignInLinkRequest())
            #expect(link.url == "\(web)/#link=\(link.token)")
            #expect(link.user == "jane" && link.token.count == 32)

            let first = try await Self.request(web + "/api/sign-in", method: .POST, body: #"{"link":"\#(link.token)"}"#)
            #expect(first.status == 200)
            struct SignedIn: Decodable { var user: String, secret: String, channels: [String] }
            let answer = try JSONDecoder().decode(SignedIn.self, from: Data(first.body.utf8))
            #expect(answer.user == "jane" && answer.channels.isEmpty)
            browserSecret = answer.secret
            #expect(browserSecret != janeSecret)
            // Both the browser's credential and the user's own secret sign in.
            let browser = try await server.connect("jane", secret: browserSecret, device: "browser")
            let phone = try await server.connect("jane", secret: janeSecret, device: "phone")
            await browser.client.close()
            await phone.client.close()

            let again = try await Self.request(web + "/api/sign-in", method: .POST, body: #"{"link":"\#(link.token)"}"#)
            #expect(again.status == 401 && again.body.contains("used already"))
            let forged = try await Self.request(web + "/api/sign-in", method: .POST, body: #"{"link":"AAAA"}"#)
            #expect(forged.status == 401)
            let junk = try await Self.request(web + "/api/sign-in", method: .POST, body: "not json")
            #expect(junk.status == 400)

            let late: SignInLinkResponse = try await server.admin.post(
                "/api/users/jane/links", body: SignInLinkRequest(ttlSeconds: 60))
            clock.advance(by: 61)
            let expired = try await Self.request(
                web + "/api/sign-in", method: .POST, body: #"{"link":"\#(late.token)"}"#)
            #expect(expired.status == 410 && expired.body.contains("expired"))

            await #expect(throws: AdminError.self) {
                let _: SignInLinkResponse = try await server.admin.post(
                    "/api/users/nobody/links", body: SignInLinkRequest())
            }
            await #expect(throws: AdminError.self) {
                let _: SignInLinkResponse = try await server.admin.post(
                    "/api/users/jane/links", body: SignInLinkRequest(ttlSeconds: 10))
            }
            let metrics = try await server.admin.getText("/metrics")
            #expect(metrics.contains(#"ptt_web_sign_ins_total{outcome="signed-in"} 1"#))
            #expect(metrics.contains(#"ptt_web_sign_ins_total{outcome="unknown"} 2"#))
            #expect(metrics.contains(#"ptt_web_sign_ins_total{outcome="expired"} 1"#))
        }
        // Stored: after a restart the browser's credential still signs in; once the user is removed (and a user
        // of the same name added again), it no longer does.
        try await withTestServer(data: data, wallClock: clock) { server in
            let browser = try await server.connect("jane", secret: browserSecret, device: "browser")
            await browser.client.close()
            try await server.admin.perform(.DELETE, "/api/users/jane")
            try await server.addUser("jane")
            await #expect(throws: (any Error).self) {
                _ = try await server.connect("jane", secret: browserSecret, device: "browser")
            }
        }
    }

    @Test("a connection to the web port that says nothing is closed at the idle deadline, and counted")
    func silentConnection() async throws {
        try await withTestServer(configure: { $0.limits.adminIdleTimeout = .milliseconds(300) }) { server in
            let info = try require_(server.server.runtimeInfo)
            let port = try require_(URLComponents(string: try require_(info.webURL))?.port)
            let raw = try await AdminLimitTests.RawHTTP(port: port)
            try await raw.waitClosed(timeout: .seconds(10))
            // Read in-process: a request to the admin API would itself meet the 300 ms idle deadline on a slow machine.
            #expect(server.localMetric(#"ptt_web_connections_timed_out_total{phase="idle"}"#) == 1)
        }
    }

    @Test("with the web listener off there is no web URL, and no sign-in link to make")
    func webOff() async throws {
        try await withTestServer(configure: { $0.web = false }) { server in
            #expect(server.server.runtimeInfo?.webURL == nil)
            try await server.addUser("jane")
            await #expect(throws: AdminError.self) {
                let _: SignInLinkResponse = try await server.admin.post(
                    "/api/users/jane/links", body: SignInLinkRequest())
            }
        }
    }
}
