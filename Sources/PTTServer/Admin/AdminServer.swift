import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import PTTCore

/// The admin HTTP listener (JSON API and `/metrics`), loopback-only unless configured otherwise.
final class AdminServer: Sendable {
    let channel: NIOCore.Channel
    private let admission: ListenerAdmission

    /// Connections beyond `limits.adminMaxConnections` are closed at accept (``ListenerAdmission``); each one has an
    /// idle and a request deadline (``AdminDeadlines``), so slow or silent clients cannot hold descriptors.
    static func bind(
        host: String, port: Int, group: EventLoopGroup, router: AdminRouter, token: String,
        limits: ConnectionLimits, settings: ListenerSettings, metrics: ServerMetrics, logger: Logger
    ) async throws -> AdminServer {
        let admission = ListenerAdmission(
            listener: "admin", limits: ListenerAdmission.adminLimits(limits),
            maxConnections: limits.adminMaxConnections,
            counters: .init(
                refused: { _ in metrics.admin.connectionsRefused.increment() },
                opened: { metrics.admin.connectionsOpen.increment() },
                closed: { metrics.admin.connectionsOpen.decrement() }),
            clock: UptimeClock(), logger: logger)
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 64)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { child in
                guard admission.admit(child) != nil else { return child.close() }
                let accepted = settings.current
                return child.eventLoop.makeCompletedFuture {
                    try child.pipeline.syncOperations.addHandler(
                        AdminDeadlines(accepted, listener: "admin", logger: logger) { metrics.admin.timedOut($0) })
                    try child.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try child.pipeline.syncOperations.addHandler(
                        AdminHTTPHandler(router: router, token: token, metrics: metrics, logger: logger))
                }
            }
            .bind(host: host, port: port).get()
        return AdminServer(channel: channel, admission: admission)
    }

    private init(channel: NIOCore.Channel, admission: ListenerAdmission) {
        self.channel = channel
        self.admission = admission
    }

    /// At shutdown, before the plane's loop stops: closes every admin connection (a keep-alive one, a Prometheus
    /// scraping, would otherwise hand a request to the stopped loop, whose promise is never completed), cut off after
    /// `grace`.
    func closeConnections(grace: TimeAmount) async {
        _ = await admission.connections.close(grace: grace, on: channel.eventLoop)
    }

    var port: Int { channel.localAddress?.port ?? 0 }
}
