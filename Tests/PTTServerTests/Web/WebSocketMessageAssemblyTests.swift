import NIOCore
import NIOWebSocket
import Testing

@testable import PTTServer

/// RFC 6455's rules for client frames as a pure value, without a socket: what is delivered, kept or failed.
@Suite("WebSocket message assembly")
struct WebSocketMessageAssemblyTests {
    static let key = WebSocketMaskingKey([1, 2, 3, 4])!

    /// A masked frame holding `text`'s bytes (masked as a client sends them).
    static func frame(
        _ opcode: WebSocketOpcode, fin: Bool = true, masked: Bool = true, _ text: String = "", rsv1: Bool = false
    ) -> WebSocketFrame {
        var data = ByteBuffer(string: text)
        if masked { data.webSocketMask(key) }
        return WebSocketFrame(fin: fin, rsv1: rsv1, opcode: opcode, maskKey: masked ? key : nil, data: data)
    }

    static func text(of outcome: WebSocketMessageAssembly.Outcome) -> String? {
        guard case .deliver(let frame) = outcome else { return nil }
        return String(buffer: frame.unmaskedData)
    }

    static func failure(of outcome: WebSocketMessageAssembly.Outcome) -> WebSocketMessageAssembly.Failure? {
        guard case .fail(let failure) = outcome else { return nil }
        return failure
    }

    @Test("a message in fragments is delivered whole, with a ping between them passed on at once")
    func fragments() {
        var assembly = WebSocketMessageAssembly(maxMessageBytes: 100)
        guard case .wait = assembly.received(Self.frame(.text, fin: false, "hel")) else {
            Issue.record("the first fragment was not kept")
            return
        }
        #expect(Self.text(of: assembly.received(Self.frame(.ping, "p"))) == "p")
        guard case .wait = assembly.received(Self.frame(.continuation, fin: false, "l")) else {
            Issue.record("the middle fragment was not kept")
            return
        }
        #expect(Self.text(of: assembly.received(Self.frame(.continuation, "o"))) == "hello")
        #expect(Self.text(of: assembly.received(Self.frame(.text, "next"))) == "next")
    }

    @Test("unmasked, reserved bits, stray continuation, interleaved message, reserved opcode: 1002, then nothing more")
    func protocolErrors() {
        let cases: [[WebSocketFrame]] = [
            [Self.frame(.text, masked: false, "x")],
            [Self.frame(.text, "x", rsv1: true)],
            [Self.frame(.continuation, "x")],
            [Self.frame(.text, fin: false, "x"), Self.frame(.binary, "y")],
            [Self.frame(WebSocketOpcode(encodedWebSocketOpcode: 3)!, "x")],
        ]
        for frames in cases {
            var assembly = WebSocketMessageAssembly(maxMessageBytes: 100)
            let last = frames.map { assembly.received($0) }.last!
            #expect(Self.failure(of: last)?.code == .protocolError, "\(frames)")
            #expect(Self.failure(of: last)?.rejection == .malformedFrame)
            guard case .wait = assembly.received(Self.frame(.text, "after")) else {
                Issue.record("a frame after the failure was handled")
                continue
            }
        }
    }

    @Test("fragments beyond the byte bound or the fragment bound: 1009, counted as frame-too-large")
    func tooLarge() {
        var bytes = WebSocketMessageAssembly(maxMessageBytes: 10)
        _ = bytes.received(Self.frame(.text, fin: false, "123456"))
        let over = bytes.received(Self.frame(.continuation, "12345"))
        #expect(Self.failure(of: over)?.code == .messageTooLarge)
        #expect(Self.failure(of: over)?.rejection == .frameTooLarge)

        var count = WebSocketMessageAssembly(maxMessageBytes: 100, maxFragments: 3)
        _ = count.received(Self.frame(.text, fin: false, "a"))
        _ = count.received(Self.frame(.continuation, fin: false, "b"))
        _ = count.received(Self.frame(.continuation, fin: false, "c"))
        #expect(Self.failure(of: count.received(Self.frame(.continuation, "d")))?.code == .messageTooLarge)

        var exact = WebSocketMessageAssembly(maxMessageBytes: 10)
        _ = exact.received(Self.frame(.text, fin: false, "12345"))
        #expect(Self.text(of: exact.received(Self.frame(.continuation, "67890"))) == "1234567890")
    }
}
