import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import PTTCore
import PTTKit
import PTTProtocol
import ServerTestSupport
import TestSupport
import Testing

/// The admin port closes idle and slow connections at their deadlines and caps how many are open.
@Suite("Admin connection limits")
struct AdminLimitTests {
    /// A raw TCP connection to the admin port that collects bytes until the server closes it.
    final class RawHTTP: @unchecked Sendable {
        let channel: NIOCore.Channel
        private let received = NIOLockedValueBox<[UInt8]>([])
        let closed: EventLoopFuture<Void>

        init(port: Int) async throws {
            let received = self.received
            channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(Collect(received))
                    }
                }
                .connect(host: "127.0.0.1", port: port).get()
            closed = channel.closeFuture
        }

        var text: String { String(decoding: received.withLockedValue { $0 }, as: UTF8.self) }
        func send(_ text: String) async throws {
            try await channel.writeAndFlush(channel.allocator.buffer(string: text))
        }

        /// Waits for the server to close the connection; throws after `timeout`.
        func waitClosed(timeout: Duration) async throws {
            try await eventually("the admin connection to be closed", timeout: timeout) { !channel.isActive }
        }

        private final class Collect: ChannelInboundHandler, @unchecked Sendable {
            typealias InboundIn = ByteBuffer
            let box: NIOLockedValueBox<[UInt8]>
            init(_ box: NIOLockedValueBox<[UInt8]>) { self.box = box }
            func channelRead(context: ChannelHandlerContext, data: NIOAny) {
                let bytes = Array(buffer: unwrapInboundIn(data))
                box.withLockedValue { $0 += bytes }
            }
            func errorCaught(context: ChannelHandlerContext, error: Error) { context.close(promise: nil) }
        }
    }

    static func adminPort(_ server: TestServer) throws -> Int {
        let url = try require_(server.server.runtimeInfo?.adminURL)
        return try require_(Int(url.split(separator: ":").last.map(String.init) ?? ""), "admin port")
    }

    @Test("a connection that sends nothing is closed at the idle deadline")
    func idle() async throws {
        try await withTestServer(configure: { $0.limits.adminIdleTimeout = .milliseconds(300) }) { server in
            let raw = try await RawHTTP(port: try Self.adminPort(server))
            try await raw.waitClosed(timeout: .seconds(10).scaled)
            #expect(server.localMetric(#"ptt_admin_connections_timed_out_total{phase="idle"}"#) == 1)
        }
    }

    @Test("a request head sent a byte at a time is cut off at the request deadline")
    func slowHead() async throws {
        try await withTestServer(configure: { $0.limits.adminRequestTimeout = .milliseconds(500) }) { server in
            let raw = try await RawHTTP(port: try Self.adminPort(server))
            try await raw.send("GET /metrics HTTP/1.1\r\n")
            let started = ContinuousClock.now
            // One header byte every 50 ms: never idle, never complete.
            for byte in "X-Slow: " + String(repeating: "a", count: 400) {
                guard raw.channel.isActive else { break }
                try? await raw.send(String(byte))
                try await Task.sleep(for: .milliseconds(50))
            }
            try await raw.waitClosed(timeout: .seconds(10))
            #expect(ContinuousClock.now - started < .seconds(15))
            #expect(server.localMetric(#"ptt_admin_connections_timed_out_total{phase="request"}"#) == 1)
        }
    }

    @Test("a body shorter than its content-length is cut off at the request deadline")
    func shortBody() async throws {
        try await withTestServer(configure: { $0.limits.adminRequestTimeout = .milliseconds(400) }) { server in
            let raw = try await RawHTTP(port: try Self.adminPort(server))
            try await raw.send("POST /api/users HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"name\":")
            try await raw.waitClosed(timeout: .seconds(10))
            #expect(server.localMetric(#"ptt_admin_connections_timed_out_total{phase="request"}"#) == 1)
        }
    }

    @Test("a keep-alive connection serves several requests, then closes when idle")
    func keepAlive() async throws {
        // Scaled: under a sanitizer a test task can wait more than a second between two requests, which an idle
        // deadline of 1 s would end (a fresh-clone ThreadSanitizer run saw that twice, and a loaded main pass once).
        try await withTestServer(configure: { $0.limits.adminIdleTimeout = .seconds(3).scaled }) { server in
            let token = try require_(server.server.adminToken)
            let raw = try await RawHTTP(port: try Self.adminPort(server))
            for _ in 0..<3 {
                let before = raw.text.components(separatedBy: "HTTP/1.1 200").count
                try await raw.send("GET /api/channels HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\n\r\n")
                try await eventually("an answer") {
                    raw.text.components(separatedBy: "HTTP/1.1 200").count == before + 1
                }
            }
            try await raw.waitClosed(timeout: .seconds(10).scaled)
            #expect(server.localMetric(#"ptt_admin_connections_timed_out_total{phase="idle"}"#) == 1)
        }
    }

    @Test("connections beyond the cap are refused; the API answers again once they close")
    func cap() async throws {
        try await withTestServer(configure: { $0.limits.adminMaxConnections = 4 }) { server in
            let port = try Self.adminPort(server)
            var held: [RawHTTP] = []
            for _ in 0..<4 { held.append(try await RawHTTP(port: port)) }
            try await eventually("four admin connections") {
                PTTServerTests.metric(
                    String(decoding: server.server.metrics.exposition(), as: UTF8.self), "ptt_admin_connections") == 4
            }
            let extra = try await RawHTTP(port: port)
            try await extra.waitClosed(timeout: TestTimeouts.eventWait)
            #expect(
                PTTServerTests.metric(
                    String(decoding: server.server.metrics.exposition(), as: UTF8.self),
                    "ptt_admin_connections_refused_total") == 1)
            for connection in held { try? await connection.channel.close() }
            try await eventually("the API to answer again") { (try? await server.admin.getText("/metrics")) != nil }
        }
    }
}
