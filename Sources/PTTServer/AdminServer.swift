import Logging
import NIOCore
import NIOHTTP1
import NIOPosix

/// The admin HTTP listener (JSON API and `/metrics`), loopback-only unless configured otherwise.
final class AdminServer: Sendable {
    let channel: Channel

    static func bind(host: String, port: Int, group: EventLoopGroup, router: AdminRouter, token: String,
                     metrics: ServerMetrics, logger: Logger) async throws -> AdminServer {
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 64)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { child in
                child.pipeline.configureHTTPServerPipeline(withErrorHandling: true).flatMapThrowing {
                    try child.pipeline.syncOperations.addHandler(AdminHTTPHandler(router: router, token: token, metrics: metrics, logger: logger))
                }
            }
            .bind(host: host, port: port).get()
        return AdminServer(channel: channel)
    }

    private init(channel: Channel) { self.channel = channel }

    var port: Int { channel.localAddress?.port ?? 0 }
}
