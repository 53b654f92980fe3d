import Logging
import NIOCore
import NIOPosix
import NIOSSL
import PTTProtocol
import Synchronization

/// Accepts control connections (TCP, TLS unless disabled) and builds each one's pipeline:
/// TLS → frame decoder/encoder → ``ControlSessionHandler``.
final class ControlServer: Sendable {
    let channel: Channel

    static func bind(host: String, port: Int, group: EventLoopGroup, tls: NIOSSLContext?, plane: ControlPlane,
                     configuration: ServerConfiguration, metrics: ServerMetrics, logger: Logger) async throws -> ControlServer {
        let nextSessionID = Atomic<UInt64>(0)
        let open = Atomic<Int>(0)
        let limit = configuration.maxConnections
        let heartbeatInterval = configuration.heartbeatInterval
        let missLimit = configuration.heartbeatMissLimit
        let helloTimeout = max(configuration.heartbeatInterval, .seconds(10))
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelOption(.maxMessagesPerRead, value: 4)
            .childChannelInitializer { child in
                let current = open.add(1, ordering: .relaxed).newValue
                child.closeFuture.whenComplete { _ in open.subtract(1, ordering: .relaxed) }
                if current > limit {
                    metrics.connectionsRefused.increment()
                    logger.warning("connection refused: limit reached", metadata: ["limit": "\(limit)"])
                    return child.close()
                }
                let id = nextSessionID.add(1, ordering: .relaxed).newValue
                return child.eventLoop.makeCompletedFuture {
                    let sync = child.pipeline.syncOperations
                    if let tls { try sync.addHandler(NIOSSLServerHandler(context: tls)) }
                    try sync.addHandler(ByteToMessageHandler(ControlFrameDecoder()))
                    try sync.addHandler(MessageToByteHandler(ControlFrameEncoder()))
                    try sync.addHandler(ControlSessionHandler(
                        plane: plane, metrics: metrics, sessionID: id, heartbeatInterval: heartbeatInterval,
                        heartbeatMissLimit: missLimit, helloTimeout: helloTimeout, logger: logger))
                }
            }
            .bind(host: host, port: port).get()
        return ControlServer(channel: channel)
    }

    private init(channel: Channel) { self.channel = channel }

    var port: Int { channel.localAddress?.port ?? 0 }
}
