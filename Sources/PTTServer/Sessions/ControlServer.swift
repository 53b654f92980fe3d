import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL
import PTTCore
import PTTProtocol
import Synchronization

/// Accepts control connections (TCP, TLS unless disabled) and builds each one's pipeline:
/// TLS → frame decoder → ``ControlSessionHandler``.
///
/// At most `limits.maxPendingHellos` connections are between accept and `hello` at once (``HelloGate``).
/// Every accept asks ``AdmissionControl`` first (through ``ListenerAdmission``, as the admin and web listeners do):
/// a refused connection is closed at once and counted by reason, so neither a full server nor one busy or hostile
/// address can hold more than its share.
final class ControlServer: Sendable {
    let channel: NIOCore.Channel
    /// Admits connections and tracks the open ones, for ``closeConnections(grace:logger:)``.
    private let admission: ListenerAdmission

    static func bind(
        host: String, port: Int, group: EventLoopGroup, settings: ListenerSettings, plane: ControlPlane,
        configuration: ServerConfiguration, maxConnections: Int, clock: any PTTClock,
        metrics: ServerMetrics, logger: Logger
    ) async throws -> ControlServer {
        let admission = ListenerAdmission(
            listener: "control", limits: configuration.limits, maxConnections: maxConnections,
            counters: .init(
                refused: { metrics.control.connectionRefused($0) },
                opened: { metrics.control.connectionsAccepted.increment() },
                blocked: { metrics.control.addressesBlocked.increment() }),
            clock: clock, logger: logger)
        let gate = HelloGate(limit: configuration.limits.maxPendingHellos)
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 1024)
            .serverChannelOption(.maxMessagesPerRead, value: 16)
            .serverChannelInitializer { server in
                server.eventLoop.makeCompletedFuture {
                    try server.pipeline.syncOperations.addHandler(HelloGateHandler(gate: gate))
                }
            }
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            .childChannelOption(.maxMessagesPerRead, value: 4)
            // Control frames are small: start each connection's read buffer at 512 bytes, not NIO's 2048 (a
            // connection that reads more gets a larger one). With thousands of idle members, that buffer is
            // most of what a connection keeps between reads.
            .childChannelOption(
                .recvAllocator, value: AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 512, maximum: 65_536)
            )
            .childChannelInitializer { child in
                let outcome = ConnectionOutcome()
                let authenticated: @Sendable () -> Bool = { outcome.authenticated.load(ordering: .relaxed) }
                guard admission.admit(child, closedByPlane: true, authenticated: authenticated) != nil else {
                    return child.close()
                }
                let id = plane.sessionNumbers.next()
                let accepted = settings.current
                return child.eventLoop.makeCompletedFuture {
                    let sync = child.pipeline.syncOperations
                    if let tls = accepted.tls { try sync.addHandler(NIOSSLServerHandler(context: tls)) }
                    try sync.addHandler(ByteToMessageHandler(ControlFrameDecoder()))
                    try sync.addHandler(
                        ControlSessionHandler(
                            plane: plane, metrics: metrics, sessionID: id,
                            heartbeatInterval: accepted.heartbeatInterval,
                            heartbeatMissLimit: accepted.heartbeatMissLimit, limits: accepted.session,
                            outcome: outcome, gate: gate, logger: logger)
                    )
                }
            }
            .bind(host: host, port: port).get()
        return ControlServer(channel: channel, admission: admission)
    }

    private init(channel: NIOCore.Channel, admission: ListenerAdmission) {
        self.channel = channel
        self.admission = admission
    }

    /// At shutdown, after the plane has told every session and closed it: cuts off below TLS whatever is still
    /// open after `grace` (a client that stopped reading never answers TLS's `close_notify`; see
    /// ``OpenConnections``). Logs how many there were.
    func closeConnections(grace: TimeAmount, logger: Logger) async {
        let closed = await admission.connections.close(grace: grace, on: channel.eventLoop)
        guard closed.cutOff > 0 else { return }
        logger.info(
            "control connections cut off", metadata: ["count": "\(closed.count)", "cutOff": "\(closed.cutOff)"])
    }

    /// A configuration reload: per-address limits and blocks apply to connections accepted from now on.
    func update(limits: ConnectionLimits) { admission.update(limits: limits) }

    /// Control connections admitted and not yet closed.
    var openConnections: Int { admission.open }

    var port: Int { channel.localAddress?.port ?? 0 }

    static func isLoopback(_ address: SocketAddress) -> Bool {
        switch address {
        case .v4(let v4): return UInt32(bigEndian: v4.address.sin_addr.s_addr) >> 24 == 127
        case .v6:
            guard let ip = address.ipAddress else { return false }
            return ip == "::1" || ip.hasPrefix("::ffff:127.")
        case .unixDomainSocket: return true
        }
    }
}
