import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOWebSocket
import PTTCore
import Synchronization

/// The web listener: the browser walkie-talkie's files over HTTPS (the control certificate), sign-in links,
/// and `/ws`, where a browser becomes a member: TLS → HTTP → WebSocket → ``WebSocketMessageHandler`` (RFC 6455's
/// rules, whole messages) → ``WebSocketControlBridge`` → ``ControlSessionHandler``, the same session handler and
/// control plane as a control connection.
///
/// A port of its own rather than ALPN on the control port: the control port's protocol stays a plain frame
/// stream that any TLS client speaks, and the operator can open (or close) the web port on its own.
///
/// Every connection passes its own ``AdmissionControl`` (at most `webMaxConnections`, the per-address caps
/// and failed-hello blocks of `limits`); before the upgrade it has the admin listener's idle and request
/// deadlines, after it the control session's hello deadline and heartbeats.
final class WebServer: Sendable {
    let channel: NIOCore.Channel
    /// Admits connections and tracks the open ones, for ``closeConnections(grace:logger:)``.
    private let admission: ListenerAdmission

    /// The largest WebSocket message: a control frame's body limit (64 KiB).
    static let maxMessageBytes = 64 * 1024

    struct Setup {
        var host: String
        var port: Int
        var settings: ListenerSettings
        var relayHost: String
        var configuration: ServerConfiguration
    }

    static func bind(
        _ setup: Setup, group: EventLoopGroup, plane: ControlPlane, clock: any PTTClock, metrics: ServerMetrics,
        logger: Logger
    ) async throws -> WebServer {
        let configuration = setup.configuration
        let admission = ListenerAdmission(
            listener: "web", limits: configuration.limits, maxConnections: configuration.webMaxConnections,
            counters: .init(
                refused: { _ in metrics.web.connectionsRefused.increment() },
                opened: { metrics.web.connectionsOpen.increment() },
                closed: { metrics.web.connectionsOpen.decrement() }),
            clock: clock, logger: logger)
        let gate = HelloGate(limit: configuration.limits.maxPendingHellos)
        let redeem: WebHTTPResponder.Redeem = { token in
            plane.eventLoop.flatSubmit { plane.signInLinks.redeem(token) }
        }
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { child in
                // A page load is not a failed hello: only a WebSocket that never authenticates counts as one (set
                // false at the upgrade, true again at its hello).
                let outcome = ConnectionOutcome()
                outcome.authenticated.store(true, ordering: .relaxed)
                guard
                    let connection = admission.admit(
                        child, authenticated: { outcome.authenticated.load(ordering: .relaxed) })
                else { return child.close() }
                let accepted = setup.settings.current
                return child.eventLoop.makeCompletedFuture {
                    let sync = child.pipeline.syncOperations
                    if let tls = accepted.tls { try sync.addHandler(NIOSSLServerHandler(context: tls)) }
                    let deadlines = AdminDeadlines(accepted, listener: "web", logger: logger) {
                        metrics.web.timedOut($0)
                    }
                    try sync.addHandler(deadlines)
                    let http = WebHTTPHandler(
                        WebHTTPResponder(redeem: redeem, metrics: metrics.web, logger: logger), logger: logger)
                    let removable = NIOLoopBound(http, eventLoop: child.eventLoop)
                    let upgrader = NIOWebSocketServerUpgrader(
                        // Errors of the frame decoder go to WebSocketMessageHandler, which counts them.
                        maxFrameSize: Self.maxMessageBytes, automaticErrorHandling: false,
                        shouldUpgrade: { channel, head in
                            let path = head.uri.split(separator: "?", maxSplits: 1).first ?? ""
                            return channel.eventLoop.makeSucceededFuture(path == "/ws" ? HTTPHeaders() : nil)
                        },
                        upgradePipelineHandler: { channel, _ in
                            connection.closedByPlane.store(true, ordering: .relaxed)
                            outcome.authenticated.store(false, ordering: .relaxed)
                            return channel.eventLoop.makeCompletedFuture {
                                let sync = channel.pipeline.syncOperations
                                try sync.removeHandler(deadlines).whenFailure { _ in }
                                try sync.addHandler(
                                    WebSocketMessageHandler(
                                        maxMessageBytes: Self.maxMessageBytes, metrics: metrics,
                                        closeGrace: accepted.session.closeGrace, logger: logger))
                                try sync.addHandler(
                                    WebSocketControlBridge(
                                        relayHost: setup.relayHost, metrics: metrics.web, logger: logger))
                                try sync.addHandler(
                                    ControlSessionHandler(
                                        plane: plane, metrics: metrics,
                                        sessionID: plane.sessionNumbers.next(),
                                        heartbeatInterval: accepted.heartbeatInterval,
                                        heartbeatMissLimit: accepted.heartbeatMissLimit, limits: accepted.session,
                                        outcome: outcome, gate: gate, announcesMemberships: true, logger: logger))
                            }
                        })
                    try sync.configureHTTPServerPipeline(
                        withServerUpgrade: (
                            upgraders: [upgrader],
                            completionHandler: { context in
                                context.pipeline.syncOperations.removeHandler(removable.value, promise: nil)
                            }
                        ),
                        withErrorHandling: true)
                    try sync.addHandler(http)
                }
            }
            .bind(host: setup.host, port: setup.port).get()
        return WebServer(channel: channel, admission: admission)
    }

    /// A configuration reload: per-address limits and blocks apply to connections accepted from now on.
    func update(limits: ConnectionLimits) { admission.update(limits: limits) }

    private init(channel: NIOCore.Channel, admission: ListenerAdmission) {
        self.channel = channel
        self.admission = admission
    }

    /// At shutdown, after the plane has told every browser session and closed it: closes the other connections,
    /// and cuts off below TLS whatever is still open after `grace` (see ``OpenConnections``). Logs how long it took.
    func closeConnections(grace: TimeAmount, logger: Logger) async {
        let start = ContinuousClock.now
        let closed = await admission.connections.close(grace: grace, on: channel.eventLoop)
        guard closed.count > 0 else { return }
        let elapsed = ContinuousClock.now - start
        logger.info(
            "web connections closed",
            metadata: [
                "count": "\(closed.count)", "cutOff": "\(closed.cutOff)",
                "ms": "\(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)",
            ])
    }

    var port: Int { channel.localAddress?.port ?? 0 }
}
