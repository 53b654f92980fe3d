import NIOCore
import NIOPosix
import PTTKit
import PTTProtocol
import TestSupport

/// A TCP connection that writes raw bytes (to send what no well-behaved client would) and decodes
/// what the server answers.
final class RawConnection: Sendable {
    let channel: Channel
    let messages: AsyncStream<ControlMessage>

    /// Connects from `source` (a loopback address such as 127.0.0.2) when given.
    static func connect(to endpoint: ServerEndpoint, from source: String? = nil) async throws -> RawConnection {
        let (stream, continuation) = AsyncStream<ControlMessage>.makeStream()
        var bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(ControlFrameDecoder()))
                    try channel.pipeline.syncOperations.addHandler(Collector(continuation: continuation))
                }
            }
        if let source { bootstrap = bootstrap.bind(to: try SocketAddress(ipAddress: source, port: 0)) }
        let channel = try await bootstrap.connect(host: endpoint.host, port: endpoint.port).get()
        return RawConnection(channel: channel, messages: stream)
    }

    private init(channel: Channel, messages: AsyncStream<ControlMessage>) {
        self.channel = channel
        self.messages = messages
    }

    func write(_ bytes: [UInt8]) async throws {
        try await channel.writeAndFlush(channel.allocator.buffer(bytes: bytes))
    }

    /// Writes one well-formed frame.
    func write(_ message: ControlMessage) async throws {
        let body = try ControlMessageCoding.encode(message)
        var bytes = withUnsafeBytes(of: UInt32(body.count).bigEndian, Array.init)
        bytes += body
        try await write(bytes)
    }

    /// Everything the server sends until it closes the connection (bounded by `timeout`).
    func collectUntilClosed(timeout: Duration = TestTimeouts.eventWait) async throws -> [ControlMessage] {
        let messages = self.messages
        return try await withThrowingTaskGroup(of: [ControlMessage]?.self) { group in
            group.addTask {
                var all: [ControlMessage] = []
                for await message in messages { all.append(message) }
                return all
            }
            group.addTask {
                try await Task.sleep(for: timeout.scaled)
                return nil
            }
            defer { group.cancelAll() }
            guard let result = try await group.next(), let all = result else {
                throw TestFailure("the server did not close the connection within \(timeout)")
            }
            return all
        }
    }

    private final class Collector: ChannelInboundHandler, Sendable {
        typealias InboundIn = ControlMessage
        let continuation: AsyncStream<ControlMessage>.Continuation
        init(continuation: AsyncStream<ControlMessage>.Continuation) { self.continuation = continuation }
        func channelRead(context: ChannelHandlerContext, data: NIOAny) { continuation.yield(unwrapInboundIn(data)) }
        func channelInactive(context: ChannelHandlerContext) { continuation.finish() }
        func errorCaught(context: ChannelHandlerContext, error: Error) { context.close(promise: nil) }
    }
}
