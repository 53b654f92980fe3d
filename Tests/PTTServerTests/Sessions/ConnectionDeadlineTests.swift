import Foundation
import NIOCore
import PTTKit
import PTTProtocol
import ServerTestSupport
import TestSupport
import Testing

/// Every control connection closes at its deadline, whatever state TLS is in, and a connection that is
/// rejected still gets the answers to what it asked before the bad frame.
@Suite("Connection deadlines")
struct ConnectionDeadlineTests {
    /// Runs `body` with a TLS server whose hello deadline is `helloMs` and close grace 300 ms.
    @discardableResult
    static func withTLSServer<T>(helloMs: Int64 = 300, _ body: (TestServer) async throws -> T) async throws -> T {
        try await withTestServer(
            configure: {
                $0.tls = true
                $0.limits.helloTimeout = .milliseconds(helloMs)
                $0.limits.closeGrace = .milliseconds(300)
            }, body)
    }

    @Test("a TCP connection that never starts TLS is closed at the hello deadline")
    func neverStartsTLS() async throws {
        try await Self.withTLSServer { server in
            let silent = try await RawConnection.connect(to: server.endpoint)
            let answers = try await silent.collectUntilClosed(timeout: .seconds(10))
            #expect(answers.isEmpty, "nothing readable can reach a peer that never did TLS")
            try await eventually("the server to count it") {
                try await server.metric(#"ptt_control_connections_closed_total{reason="hello-timeout"}"#) == 1
            }
            try await eventually("the connection to be forgotten") {
                try await server.metric("ptt_control_connections") == 0
            }
        }
    }

    @Test("a TLS handshake that stops half-way is closed at the hello deadline")
    func handshakeStalls() async throws {
        // A deadline long enough that the partial record is written before it even under load (at 300 ms a busy
        // machine closed the connection before the test wrote).
        try await Self.withTLSServer(helloMs: 1500) { server in
            let stalled = try await RawConnection.connect(to: server.endpoint)
            // The first bytes of a TLS record header of a ClientHello, then nothing.
            try await stalled.write([0x16, 0x03, 0x01, 0x00, 0xC8, 0x01])
            _ = try await stalled.collectUntilClosed(timeout: .seconds(10))
            #expect(try await server.metric(#"ptt_control_connections_closed_total{reason="hello-timeout"}"#) == 1)
        }
    }

    @Test("at most maxPendingHellos connections wait for hello; the next is accepted when one leaves")
    func helloGate() async throws {
        try await withTestServer(configure: { $0.limits.maxPendingHellos = 2 }) { server in
            let secret = try await server.addUser("alice")
            let first = try await SilentConnection.connect(to: server.endpoint)
            let second = try await SilentConnection.connect(to: server.endpoint)
            try await eventually("two connections waiting for hello") {
                try await server.metric("ptt_control_connections") == 2
            }
            // The third completes TCP in the kernel's backlog but is not accepted while the gate is full.
            let third = try await RawConnection.connect(to: server.endpoint)
            try await third.write(.hello(Hello(user: "alice", secret: secret, device: "third")))
            try await Task.sleep(for: .milliseconds(300))
            #expect(try await server.metric("ptt_control_connections") == 2)
            await first.close()
            var iterator = third.messages.makeAsyncIterator()
            let welcome = await iterator.next()
            #expect(welcome?.type == "welcome")
            // Authenticated connections do not count: a fourth is accepted although two are open.
            let fourth = try await server.connect("alice", secret: secret, device: "fourth")
            #expect(try await fourth.join("deck").channel.name == "deck")
            await fourth.close()
            await second.close()
            try? await third.channel.close()
        }
    }

    @Test("a join followed by a bad frame in the same write is answered, then the error closes the connection")
    func answeredBeforeClose() async throws {
        try await withTestServer { server in
            let secret = try await server.addUser("alice")
            let raw = try await RawConnection.connect(to: server.endpoint)
            try await raw.write(.hello(Hello(user: "alice", secret: secret, device: "phone")))
            var bytes = try Array(buffer: ControlFrame(.join(Join(id: 1, channel: "deck"))).bytes)
            let garbage = Array("{not json".utf8)
            bytes += withUnsafeBytes(of: UInt32(garbage.count).bigEndian, Array.init) + garbage
            try await raw.write(bytes)
            let answers = try await raw.collectUntilClosed()
            #expect(answers.map(\.type) == ["welcome", "joined", "error"])
            if case .error(let error)? = answers.last { #expect(error.code == .malformedFrame) }
            // The join took effect, and the member was told so.
            let channel: ChannelDetail = try await server.admin.get("/api/channels/deck")
            #expect(channel.members.count == 1)
        }
    }

    @Test("a frame with a duplicate key is refused as malformed")
    func duplicateKey() async throws {
        try await withTestServer { server in
            let raw = try await RawConnection.connect(to: server.endpoint)
            let body = Array(#"{"type":"heartbeat","type":"join","seq":1,"channel":"deck"}"#.utf8)
            try await raw.write(withUnsafeBytes(of: UInt32(body.count).bigEndian, Array.init) + body)
            let answers = try await raw.collectUntilClosed()
            guard case .error(let error)? = answers.last else {
                throw TestFailure("expected an error, got \(answers.map(\.type))")
            }
            #expect(error.code == .malformedFrame)
            #expect(error.message.contains("duplicate key 'type'"))
        }
    }
}
