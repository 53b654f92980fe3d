import Foundation
import NIOCore
import PTTProtocol
import ServerTestSupport
import TestSupport
import Testing

@testable import PTTServer

/// The admin and web listeners' shared admission (``ListenerAdmission``) and request handling
/// (``HTTPRequestHandler``), over real sockets: caps, per-address blocks, and HEAD.
@Suite("HTTP listeners")
struct HTTPListenerTests {
    static func webPort(_ server: TestServer) throws -> Int {
        try require_(URLComponents(string: try require_(server.server.runtimeInfo?.webURL))?.port)
    }

    @Test("web connections beyond webMaxConnections are refused at accept and counted; the page answers again after")
    func webCap() async throws {
        try await withTestServer(configure: { $0.webMaxConnections = 2 }) { server in
            let port = try Self.webPort(server)
            var held: [AdminLimitTests.RawHTTP] = []
            for _ in 0..<2 { held.append(try await AdminLimitTests.RawHTTP(port: port)) }
            try await eventually("two web connections") { server.localMetric("ptt_web_connections") == 2 }
            let extra = try await AdminLimitTests.RawHTTP(port: port)
            try await extra.waitClosed(timeout: TestTimeouts.eventWait)
            #expect(server.localMetric("ptt_web_connections_refused_total") == 1)
            for connection in held { try? await connection.channel.close() }
            try await eventually("the page to answer again") {
                (try? await WebListenerTests.request(try require_(server.server.runtimeInfo?.webURL) + "/"))?.status
                    == 200
            }
        }
    }

    @Test("a web connection that upgrades and never says hello counts against its address; page loads do not")
    func webFailedHellos() async throws {
        try await withTestServer(configure: {
            $0.limits.exemptLoopback = false
            $0.limits.failedHellosPerAddress = 2
            $0.limits.addressBlock = .seconds(60)
        }) { server in
            let port = try Self.webPort(server)
            func pageLoad() async throws -> String {
                let raw = try await AdminLimitTests.RawHTTP(port: port)
                try await raw.send("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                try await raw.waitClosed(timeout: TestTimeouts.eventWait)
                return raw.text
            }
            func closedEverywhere() async throws {
                try await eventually("the web connections to be closed") {
                    server.localMetric("ptt_web_connections") == 0
                }
            }
            for _ in 0..<3 { #expect(try await pageLoad().hasPrefix("HTTP/1.1 200")) }
            let first = try await RawWebSocket.connect(port: port)
            await first.close()
            try await closedEverywhere()
            // Three page loads and one silent WebSocket: one failure, not blocked.
            #expect(try await pageLoad().hasPrefix("HTTP/1.1 200"))
            let second = try await RawWebSocket.connect(port: port)
            await second.close()
            try await closedEverywhere()
            // Two failures: the address is blocked, its next connection closed at accept.
            let refused = try await AdminLimitTests.RawHTTP(port: port)
            try await refused.waitClosed(timeout: TestTimeouts.eventWait)
            #expect(refused.text.isEmpty)
            #expect(server.localMetric("ptt_web_connections_refused_total") == 1)
        }
    }

    @Test("HEAD to the admin API is answered with the head only, and the connection serves the next request")
    func adminHead() async throws {
        try await withTestServer { server in
            let token = try require_(server.server.adminToken)
            let raw = try await AdminLimitTests.RawHTTP(port: try AdminLimitTests.adminPort(server))
            let authorization = "Host: x\r\nAuthorization: Bearer \(token)\r\n\r\n"
            try await raw.send("HEAD /api/channels HTTP/1.1\r\n" + authorization)
            try await raw.send("GET /api/channels HTTP/1.1\r\n" + authorization)
            try await eventually("two answers") { raw.text.components(separatedBy: "HTTP/1.1 ").count == 3 }
            let answers = raw.text.components(separatedBy: "\r\n\r\n")
            #expect(answers.count >= 2)
            #expect(answers.dropFirst().first?.hasPrefix("HTTP/1.1 200") == true, "no body after the HEAD answer")
            try? await raw.channel.close()
        }
    }
}
