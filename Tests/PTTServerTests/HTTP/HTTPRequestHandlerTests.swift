import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing

@testable import PTTServer

/// The request collector both HTTP listeners share (``HTTPRequestHandler`` with ``HTTPRequestCollector``), behind
/// NIO's real HTTP/1 server codec in an `EmbeddedChannel`: bodies in parts, over the limit, absent, and keep-alive.
@Suite("HTTP request collector")
struct HTTPRequestHandlerTests {
    /// Answers every request with its method, path and body length (`413` when the body was too large), and keeps
    /// what it was given.
    final class Echo: HTTPResponder {
        let maxBodyBytes = 16
        let listener = "test"
        var seen: [HTTPRequest] = []

        func answer(_ request: HTTPRequest, on channel: any NIOCore.Channel) -> EventLoopFuture<HTTPAnswer> {
            seen.append(request)
            let text =
                request.bodyTooLarge
                ? "too large"
                : "\(request.head.method.rawValue) \(request.path) \(String(decoding: request.body, as: UTF8.self))"
            return channel.eventLoop.makeSucceededFuture(
                HTTPAnswer(
                    status: request.bodyTooLarge ? .payloadTooLarge : .ok, contentType: "text/plain",
                    body: Array(text.utf8), headers: [("x-test", "1")]))
        }
    }

    /// Runs `body` with an embedded connection through NIO's HTTP/1 server pipeline and the handler.
    static func withConnection(_ body: (Echo, EmbeddedChannel) throws -> Void) throws {
        let echo = Echo()
        let channel = EmbeddedChannel()
        defer { _ = try? channel.finish() }
        try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
        try channel.pipeline.syncOperations.addHandler(HTTPRequestHandler(echo, logger: .init(label: "test")))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        try body(echo, channel)
    }

    static func send(_ channel: EmbeddedChannel, _ text: String) throws {
        try channel.writeInbound(channel.allocator.buffer(string: text))
        channel.embeddedEventLoop.run()
    }

    /// Everything the handler wrote so far, as text.
    static func written(_ channel: EmbeddedChannel) throws -> String {
        var text = ""
        while let data = try channel.readOutbound(as: IOData.self) {
            guard case .byteBuffer(let buffer) = data else { continue }
            text += String(buffer: buffer)
        }
        return text
    }

    @Test("a body sent a byte at a time, or in many chunks, is answered once, whole")
    func bodyInParts() throws {
        try Self.withConnection { echo, channel in
            try Self.send(channel, "POST /a?q=1 HTTP/1.1\r\nHost: x\r\nContent-Length: 12\r\n\r\n")
            for byte in "hello world!" { try Self.send(channel, String(byte)) }
            try Self.send(channel, "POST /b HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
            for chunk in ["he", "llo", " ", "chunks"] { try Self.send(channel, "\(chunk.utf8.count)\r\n\(chunk)\r\n") }
            try Self.send(channel, "0\r\n\r\n")
            let text = try Self.written(channel)
            #expect(echo.seen.map(\.body.count) == [12, 12])
            #expect(text.components(separatedBy: "HTTP/1.1 200 OK").count == 3)
            #expect(
                text.contains("content-length: 20\r\nx-test: 1\r\nconnection: keep-alive\r\n\r\nPOST /a hello world!"))
            #expect(text.hasSuffix("POST /b hello chunks"))
            #expect(channel.isActive)
        }
    }

    @Test("a body over the limit is not kept; it is answered, and the connection closes after the answer")
    func bodyTooLarge() throws {
        try Self.withConnection { echo, channel in
            try Self.send(channel, "POST /big HTTP/1.1\r\nHost: x\r\nContent-Length: 40\r\n\r\n")
            for _ in 0..<4 { try Self.send(channel, String(repeating: "x", count: 10)) }
            let text = try Self.written(channel)
            #expect(echo.seen.count == 1)
            #expect(echo.seen.first?.bodyTooLarge == true && echo.seen.first?.body.isEmpty == true)
            #expect(text.hasPrefix("HTTP/1.1 413 Payload Too Large\r\n"))
            #expect(text.contains("connection: close\r\n"))
            #expect(text.hasSuffix("\r\n\r\ntoo large"))
            #expect(!channel.isActive)
        }
    }

    @Test("a body exactly at the limit is kept")
    func bodyAtLimit() throws {
        try Self.withConnection { echo, channel in
            try Self.send(channel, "PUT /l HTTP/1.1\r\nHost: x\r\nContent-Length: 16\r\n\r\n0123456789abcdef")
            #expect(try Self.written(channel).hasSuffix("PUT /l 0123456789abcdef"))
            #expect(echo.seen.first?.bodyTooLarge == false)
            #expect(channel.isActive)
        }
    }

    @Test("a request with no body is answered; connection: close is honoured")
    func noBody() throws {
        try Self.withConnection { echo, channel in
            try Self.send(channel, "GET /page HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            let text = try Self.written(channel)
            #expect(echo.seen.map(\.body) == [[]])
            #expect(text.hasPrefix("HTTP/1.1 200 OK\r\n") && text.contains("connection: close\r\n"))
            #expect(text.hasSuffix("\r\n\r\nGET /page "))
            #expect(!channel.isActive)
        }
    }

    @Test("two requests in one write on a keep-alive connection get two answers, in order; the connection stays open")
    func keepAlive() throws {
        try Self.withConnection { echo, channel in
            try Self.send(
                channel,
                "POST /one HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc"
                    + "GET /two HTTP/1.1\r\nHost: x\r\n\r\n")
            let text = try Self.written(channel)
            #expect(echo.seen.map(\.path) == ["/one", "/two"])
            let answers = text.components(separatedBy: "HTTP/1.1 200 OK")
            #expect(answers.count == 3)
            #expect(answers.dropFirst().first?.hasSuffix("POST /one abc") == true)
            #expect(answers.last?.hasSuffix("GET /two ") == true)
            #expect(channel.isActive)
        }
    }

    @Test("a HEAD is answered with the head (its length included) and no body")
    func head() throws {
        try Self.withConnection { echo, channel in
            try Self.send(channel, "HEAD /page HTTP/1.1\r\nHost: x\r\n\r\n")
            let text = try Self.written(channel)
            #expect(text.contains("content-length: 11\r\n"))
            #expect(text.hasSuffix("connection: keep-alive\r\n\r\n"))
            #expect(channel.isActive)
        }
    }
}
