import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL
import PTTProtocol
import TestSupport

/// A WebSocket client on a TCP socket that writes frames byte by byte as the test spells them (unmasked, reserved
/// bits set, fragmented...), to send what no browser would, and reads the server's frames the same way. With `tls`,
/// over TLS (the server's certificate is not checked).
final class RawWebSocket: Sendable {
    /// One frame from the server, or the end of the connection.
    enum Event: Sendable, Equatable {
        case frame(opcode: UInt8, fin: Bool, payload: [UInt8])
        case closed
    }

    let channel: Channel
    private let events: AsyncStream<Event>

    /// Connects to `127.0.0.1:port`, asks for `/ws` and waits for `101 Switching Protocols`.
    static func connect(port: Int, tls: Bool = false) async throws -> RawWebSocket {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.certificateVerification = .none
        let context = tls ? try NIOSSLContext(configuration: configuration) : nil
        let (stream, continuation) = AsyncStream<Event>.makeStream()
        let (upgraded, upgradedContinuation) = AsyncStream<String>.makeStream()
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let context {
                        try channel.pipeline.syncOperations.addHandler(
                            NIOSSLClientHandler(context: context, serverHostname: nil))
                    }
                    try channel.pipeline.syncOperations.addHandler(
                        Reader(events: continuation, handshake: upgradedContinuation))
                }
            }
            .connect(host: "127.0.0.1", port: port).get()
        let request =
            "GET /ws HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        try await channel.writeAndFlush(channel.allocator.buffer(string: request))
        var iterator = upgraded.makeAsyncIterator()
        let head = await iterator.next() ?? ""
        guard head.hasPrefix("HTTP/1.1 101") else {
            try? await channel.close()
            throw TestFailure("no WebSocket upgrade: \(head.prefix(200))")
        }
        return RawWebSocket(channel: channel, events: stream)
    }

    private init(channel: Channel, events: AsyncStream<Event>) {
        self.channel = channel
        self.events = events
    }

    /// The bytes of one frame: `rsv` is the three reserved bits (0...7, RSV1 = 4), masked with a fixed key unless
    /// `masked` is false.
    static func frame(
        opcode: UInt8, fin: Bool = true, rsv: UInt8 = 0, masked: Bool = true, _ payload: [UInt8]
    )
        -> [UInt8]
    {
        var bytes: [UInt8] = [(fin ? 0x80 : 0) | (rsv & 7) << 4 | (opcode & 0x0F)]
        let maskBit: UInt8 = masked ? 0x80 : 0
        switch payload.count {
        case 0...125: bytes.append(maskBit | UInt8(payload.count))
        case 126...0xFFFF:
            bytes.append(maskBit | 126)
            bytes += withUnsafeBytes(of: UInt16(payload.count).bigEndian, Array.init)
        default:
            bytes.append(maskBit | 127)
            bytes += withUnsafeBytes(of: UInt64(payload.count).bigEndian, Array.init)
        }
        guard masked else { return bytes + payload }
        let key: [UInt8] = [0x37, 0xFA, 0x21, 0x3D]
        bytes += key
        bytes += payload.enumerated().map { $0.element ^ key[$0.offset % 4] }
        return bytes
    }

    /// A text frame holding `text`.
    static func text(_ text: String, fin: Bool = true, rsv: UInt8 = 0, masked: Bool = true) -> [UInt8] {
        frame(opcode: 1, fin: fin, rsv: rsv, masked: masked, Array(text.utf8))
    }

    func write(_ bytes: [UInt8]) async throws {
        try await channel.writeAndFlush(channel.allocator.buffer(bytes: bytes))
    }

    /// Everything the server sends until it closes the connection, within `timeout`.
    func collectUntilClosed(timeout: Duration = TestTimeouts.eventWait) async throws -> [Event] {
        let events = self.events
        return try await withThrowingTaskGroup(of: [Event]?.self) { group in
            group.addTask {
                var all: [Event] = []
                for await event in events {
                    all.append(event)
                    if event == .closed { break }
                }
                return all
            }
            group.addTask {
                try await Task.sleep(for: timeout.scaled)
                return nil
            }
            defer { group.cancelAll() }
            guard let result = try await group.next(), let all = result else {
                throw TestFailure("the server did not close the WebSocket within \(timeout)")
            }
            return all
        }
    }

    /// The next text message the server sends, decoded; nil if the connection closes first.
    func nextMessage(timeout: Duration = TestTimeouts.eventWait) async throws -> ControlMessage? {
        let events = self.events
        return try await withThrowingTaskGroup(of: ControlMessage?.self) { group in
            group.addTask {
                for await event in events {
                    guard case .frame(1, true, let payload) = event else {
                        if event == .closed { return nil }
                        continue
                    }
                    return try ControlMessageCoding.decode(Data(payload))
                }
                return nil
            }
            group.addTask {
                try await Task.sleep(for: timeout.scaled)
                throw TestFailure("no message from the server within \(timeout)")
            }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
    }

    func close() async { try? await channel.close() }

    /// Stops reading from the socket, as a frozen tab does: nothing the server sends from now on is read, so a TLS
    /// `close_notify` from the server is never answered.
    func stopReading() async throws {
        try await channel.setOption(ChannelOptions.autoRead, value: false)
    }

    /// The status code of the server's close frame among `events`, if it sent one.
    static func closeCode(in events: [Event]) -> Int? {
        for case .frame(8, _, let payload) in events where payload.count >= 2 {
            return Int(payload[0]) << 8 | Int(payload[1])
        }
        return nil
    }

    /// Reads the HTTP answer to the upgrade, then frames (unmasked, as a server sends them).
    private final class Reader: ChannelInboundHandler, @unchecked Sendable {
        // @unchecked: touched only on the connection's event loop.
        typealias InboundIn = ByteBuffer
        let events: AsyncStream<Event>.Continuation
        let handshake: AsyncStream<String>.Continuation
        var buffer = ByteBuffer()
        var upgraded = false

        init(events: AsyncStream<Event>.Continuation, handshake: AsyncStream<String>.Continuation) {
            self.events = events
            self.handshake = handshake
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var bytes = unwrapInboundIn(data)
            buffer.writeBuffer(&bytes)
            if !upgraded {
                let view = buffer.readableBytesView
                guard let end = view.firstRange(of: Array("\r\n\r\n".utf8)) else { return }
                let length = end.upperBound - view.startIndex
                handshake.yield(buffer.readString(length: length) ?? "")
                handshake.finish()
                upgraded = true
            }
            while let event = nextFrame() { events.yield(event) }
        }

        private func nextFrame() -> Event? {
            let view = buffer.readableBytesView
            guard view.count >= 2 else { return nil }
            let first = view[view.startIndex]
            let second = view[view.startIndex + 1]
            var header = 2
            var length = Int(second & 0x7F)
            if length == 126 {
                guard view.count >= 4 else { return nil }
                length = Int(view[view.startIndex + 2]) << 8 | Int(view[view.startIndex + 3])
                header = 4
            } else if length == 127 {
                guard view.count >= 10 else { return nil }
                length = (2..<10).reduce(0) { $0 << 8 | Int(view[view.startIndex + $1]) }
                header = 10
            }
            guard view.count >= header + length else { return nil }
            buffer.moveReaderIndex(forwardBy: header)
            let payload = buffer.readBytes(length: length) ?? []
            return .frame(opcode: first & 0x0F, fin: first & 0x80 != 0, payload: payload)
        }

        func channelInactive(context: ChannelHandlerContext) {
            handshake.finish()
            events.yield(.closed)
            events.finish()
        }

        func errorCaught(context: ChannelHandlerContext, error: Error) { context.close(promise: nil) }
    }
}
