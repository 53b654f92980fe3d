import Foundation
import PTTProtocol
import ServerTestSupport
import TestSupport
import Testing

/// RFC 6455's rules for the frames a client sends, on the web listener, from a raw socket: what no browser sends
/// (unmasked frames, reserved bits, messages over 64 KiB in fragments) fails the WebSocket with the RFC's status
/// and is counted; what a browser may send (a message in fragments within the bound) works.
@Suite("WebSocket framing")
struct WebSocketFramingTests {
    static let rejectedMalformed = #"ptt_control_frames_rejected_total{reason="malformed-frame"}"#
    static let rejectedTooLarge = #"ptt_control_frames_rejected_total{reason="frame-too-large"}"#

    static func webPort(_ server: TestServer) throws -> Int {
        let web = try require_(server.server.runtimeInfo?.webURL)
        return try require_(URLComponents(string: web)?.port)
    }

    static func hello(_ user: String, _ secret: String) throws -> String {
        let hello = Hello(user: user, secret: secret, device: "\(user)-browser", role: .app, client: "tests")
        return String(decoding: try ControlMessageCoding.encode(.hello(hello)), as: UTF8.self)
    }

    /// Sends `bytes` on a new WebSocket and returns the status of the server's close frame once it has closed.
    static func closeCode(_ server: TestServer, after bytes: [UInt8]) async throws -> Int? {
        let socket = try await RawWebSocket.connect(port: try webPort(server))
        defer { Task { await socket.close() } }
        try await socket.write(bytes)
        return RawWebSocket.closeCode(in: try await socket.collectUntilClosed())
    }

    @Test("an unmasked frame from the client fails the WebSocket with 1002, and is counted")
    func unmasked() async throws {
        try await withTestServer { server in
            let secret = try await server.addUser("jane")
            let code = try await Self.closeCode(
                server, after: RawWebSocket.text(try Self.hello("jane", secret), masked: false))
            #expect(code == 1002)
            #expect(try await server.metric(Self.rejectedMalformed) == 1)
            #expect(try await server.metric("ptt_web_sessions") == 0)
        }
    }

    @Test("a frame with RSV1 or RSV2 set, no extension being agreed, fails the WebSocket with 1002, and is counted")
    func reservedBits() async throws {
        try await withTestServer { server in
            let secret = try await server.addUser("jane")
            for rsv: UInt8 in [4, 2, 1] {
                let code = try await Self.closeCode(
                    server, after: RawWebSocket.text(try Self.hello("jane", secret), rsv: rsv))
                #expect(code == 1002, "rsv bits \(rsv)")
            }
            #expect(try await server.metric(Self.rejectedMalformed) == 3)
        }
    }

    @Test("a message over 64 KiB closes with 1009 whether sent in one frame or in fragments, and is counted")
    func oversizedMessages() async throws {
        try await withTestServer { server in
            let sixteen = [UInt8](repeating: UInt8(ascii: " "), count: 16 * 1024)
            var fiveFragments = RawWebSocket.frame(opcode: 1, fin: false, sixteen)
            for index in 1..<5 { fiveFragments += RawWebSocket.frame(opcode: 0, fin: index == 4, sixteen) }
            let forty = [UInt8](repeating: UInt8(ascii: " "), count: 40 * 1024)
            let twoFragments =
                RawWebSocket.frame(opcode: 1, fin: false, forty) + RawWebSocket.frame(opcode: 0, fin: true, forty)
            let oneFrame = RawWebSocket.frame(opcode: 1, [UInt8](repeating: UInt8(ascii: " "), count: 70 * 1024))
            for (name, bytes) in [("5 × 16 KiB", fiveFragments), ("2 × 40 KiB", twoFragments), ("70 KiB", oneFrame)] {
                let code = try await Self.closeCode(server, after: bytes)
                #expect(code == 1009, "\(name)")
            }
            let counted = try await server.metric(Self.rejectedTooLarge)
            #expect(counted == 3)
        }
    }

    @Test(
        "a message in fragments within 64 KiB is reassembled: a hello in three pieces, with a ping between, is welcomed"
    )
    func fragmentedHello() async throws {
        try await withTestServer { server in
            let secret = try await server.addUser("jane")
            let hello = Array(try Self.hello("jane", secret).utf8)
            let third = hello.count / 3
            let socket = try await RawWebSocket.connect(port: try Self.webPort(server))
            try await socket.write(
                RawWebSocket.frame(opcode: 1, fin: false, Array(hello[..<third]))
                    + RawWebSocket.frame(opcode: 9, Array("ping".utf8))
                    + RawWebSocket.frame(opcode: 0, fin: false, Array(hello[third..<(2 * third)]))
                    + RawWebSocket.frame(opcode: 0, fin: true, Array(hello[(2 * third)...])))
            guard case .welcome = try await socket.nextMessage() else { throw TestFailure("expected welcome") }
            await socket.close()
            #expect(try await server.metric(Self.rejectedMalformed) == 0)
        }
    }

    @Test("a continuation with no message begun, or a new message inside a fragmented one, fails with 1002")
    func strayContinuation() async throws {
        try await withTestServer { server in
            let stray = try await Self.closeCode(server, after: RawWebSocket.frame(opcode: 0, Array("{}".utf8)))
            #expect(stray == 1002)
            let interleaved =
                RawWebSocket.frame(opcode: 1, fin: false, Array("{".utf8)) + RawWebSocket.text("{}")
            let inside = try await Self.closeCode(server, after: interleaved)
            #expect(inside == 1002)
            let counted = try await server.metric(Self.rejectedMalformed)
            #expect(counted == 2)
        }
    }

    @Test("section 2's duplicate-key example is refused as a duplicate on the WebSocket and on the control port")
    func duplicateKey() async throws {
        try await withTestServer { server in
            let example = #"{"type":"heartbeat","type":"join"}"#
            let socket = try await RawWebSocket.connect(port: try Self.webPort(server))
            try await socket.write(RawWebSocket.text(example))
            guard case .error(let web) = try await socket.nextMessage() else { throw TestFailure("expected error") }
            #expect(web.code == .malformedFrame && web.message == "malformed frame: duplicate key 'type'")
            await socket.close()

            let raw = try await RawConnection.connect(to: server.endpoint)
            let body = Array(example.utf8)
            try await raw.write(withUnsafeBytes(of: UInt32(body.count).bigEndian, Array.init) + body)
            guard case .error(let control)? = try await raw.collectUntilClosed().last else {
                throw TestFailure("expected error")
            }
            #expect(control.code == .malformedFrame && control.message == "malformed frame: duplicate key 'type'")
        }
    }

    @Test("browser sessions are numbered like control sessions, counted from 1 (PROTOCOL 5.2), and never share one")
    func sessionNumbers() async throws {
        try await withTestServer { server in
            let secret = try await server.addUser("jane")
            let phone = try await server.connect("jane", secret: secret, device: "phone")
            let socket = try await RawWebSocket.connect(port: try Self.webPort(server))
            try await socket.write(RawWebSocket.text(try Self.hello("jane", secret)))
            guard case .welcome(let welcome) = try await socket.nextMessage() else {
                throw TestFailure("expected welcome")
            }
            let control = try require_(UInt64(phone.welcome.session))
            let browser = try require_(UInt64(welcome.session))
            #expect(control == 1)
            #expect(browser == 2, "browser session \(browser)")
            await socket.close()
            await phone.client.close()
        }
    }
}
