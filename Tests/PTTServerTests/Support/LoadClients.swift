import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL
import PTTCore
import PTTKit
import PTTProtocol
import ServerTestSupport
import TestSupport

/// A control connection that writes frames and never reads what the server sends (a client whose app
/// froze, or a hostile one). Its receive buffer is small, so the server's writes back up quickly.
final class SilentConnection: Sendable {
    let channel: NIOCore.Channel

    /// Connects from `source` (a loopback address such as 127.0.0.2) when given.
    static func connect(
        to endpoint: ServerEndpoint, from source: String? = nil, receiveBuffer: Int = 4096
    ) async throws -> SilentConnection {
        var bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.autoRead, value: false)
            .channelOption(.socketOption(.so_rcvbuf), value: SocketOptionValue(receiveBuffer))
        if let source { bootstrap = bootstrap.bind(to: try SocketAddress(ipAddress: source, port: 0)) }
        let channel = try await bootstrap.connect(host: endpoint.host, port: endpoint.port).get()
        return SilentConnection(channel: channel)
    }

    private init(channel: NIOCore.Channel) { self.channel = channel }

    func write(_ messages: [ControlMessage]) async throws { try await writeFrames(messages, to: channel) }

    /// Whether the server closed it (seen as soon as the kernel reports the reset or end of stream).
    var isClosed: Bool { !channel.isActive }

    func close() async { try? await channel.close() }
}

/// A connection that reads and throws away everything the server sends: a fast client that does not
/// keep what it receives (so a long test does not grow the test process).
final class DiscardingConnection: Sendable {
    let channel: NIOCore.Channel

    static func connect(to endpoint: ServerEndpoint, from source: String? = nil) async throws -> DiscardingConnection {
        var bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(Discard()) }
            }
        if let source { bootstrap = bootstrap.bind(to: try SocketAddress(ipAddress: source, port: 0)) }
        return DiscardingConnection(
            channel: try await bootstrap.connect(host: endpoint.host, port: endpoint.port).get())
    }

    private init(channel: NIOCore.Channel) { self.channel = channel }

    func write(_ messages: [ControlMessage]) async throws { try await writeFrames(messages, to: channel) }

    func close() async { try? await channel.close() }

    private final class Discard: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        func channelRead(context: ChannelHandlerContext, data: NIOAny) {}
        func errorCaught(context: ChannelHandlerContext, error: Error) { context.close(promise: nil) }
    }
}

/// The value of one series in a Prometheus text exposition, e.g.
/// `metric(text, #"ptt_control_connections_closed_total{reason="slow-reader"}"#)`.
func metric(_ exposition: String, _ series: String) -> Double? {
    for line in exposition.split(separator: "\n") where line.hasPrefix(series + " ") {
        return Double(line.dropFirst(series.count + 1).trimmingCharacters(in: .whitespaces))
    }
    return nil
}

extension TestServer {
    /// One series of this server's `/metrics` (0 when absent).
    func metric(_ series: String) async throws -> Double {
        PTTServerTests.metric(try await admin.getText("/metrics"), series) ?? 0
    }

    /// One series of this server's metrics read in-process (0 when absent): for tests whose admin deadlines are
    /// so short that a request of their own could be cut off on a busy machine.
    func localMetric(_ series: String) -> Double {
        PTTServerTests.metric(String(decoding: server.metrics.exposition(), as: UTF8.self), series) ?? 0
    }
}

/// A control connection (TLS or not) that hands every frame the server sends to `onMessage`, on its
/// event loop: many of them can run in one test process without a task each.
final class RecordingConnection: Sendable {
    let channel: NIOCore.Channel

    /// One TLS context for every connection of a test (certificates are not checked: these tests are about load).
    static func tlsContext() throws -> NIOSSLContext {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.certificateVerification = .none
        return try NIOSSLContext(configuration: tls)
    }

    static func connect(
        to endpoint: ServerEndpoint, tls: NIOSSLContext?, timeout: TimeAmount = .seconds(60),
        onMessage: @escaping @Sendable (ControlMessage) -> Void
    ) async throws -> RecordingConnection {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(timeout)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    if let tls { try sync.addHandler(try NIOSSLClientHandler(context: tls, serverHostname: nil)) }
                    try sync.addHandler(ByteToMessageHandler(ControlFrameDecoder()))
                    try sync.addHandler(Deliver(onMessage))
                }
            }
            .connect(host: endpoint.host, port: endpoint.port).get()
        return RecordingConnection(channel: channel)
    }

    private init(channel: NIOCore.Channel) { self.channel = channel }

    func write(_ messages: [ControlMessage]) async throws { try await writeFrames(messages, to: channel) }

    func close() async { try? await channel.close() }

    private final class Deliver: ChannelInboundHandler, Sendable {
        typealias InboundIn = ControlMessage
        let onMessage: @Sendable (ControlMessage) -> Void
        init(_ onMessage: @escaping @Sendable (ControlMessage) -> Void) { self.onMessage = onMessage }
        func channelRead(context: ChannelHandlerContext, data: NIOAny) { onMessage(unwrapInboundIn(data)) }
        func errorCaught(context: ChannelHandlerContext, error: Error) { context.close(promise: nil) }
    }
}

/// The process's open-file limit, raised to the hard limit; nil if it cannot be read.
func raiseDescriptorLimit() -> Int? {
    var limits = rlimit()
    guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limits) == 0 else { return nil }
    if limits.rlim_cur < limits.rlim_max {
        limits.rlim_cur = limits.rlim_max
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limits)
        _ = getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limits)
    }
    return limits.rlim_cur == rlim_t.max ? Int.max : Int(clamping: limits.rlim_cur)
}

/// Writes `messages` as control frames in one write.
func writeFrames(_ messages: [ControlMessage], to channel: NIOCore.Channel) async throws {
    var buffer = channel.allocator.buffer(capacity: 256 * messages.count)
    for message in messages { try ControlFrame.write(message, into: &buffer) }
    try await channel.writeAndFlush(buffer)
}
