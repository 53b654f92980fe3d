import NIOConcurrencyHelpers
import NIOCore
import NIOSSL
import PTTCore

/// What the control, web and admin listeners give each connection they accept: the TLS context, heartbeats,
/// deadlines and queue bounds. A configuration reload replaces it as a whole; a connection keeps what it was
/// accepted with, so nothing open is cut or changed under its feet.
final class ListenerSettings: Sendable {
    /// One consistent set, read once per accepted connection.
    struct Snapshot: Sendable {
        /// The control and web listeners' TLS context; nil with `--no-tls`.
        var tls: NIOSSLContext?
        var heartbeatInterval: Duration
        var heartbeatMissLimit: Int
        /// Deadlines and queue bounds of a control session.
        var session: ConnectionLimitsInEffect
        /// An admin or web HTTP connection's deadlines.
        var httpIdleTimeout: TimeAmount
        var httpRequestTimeout: TimeAmount

        init(configuration: ServerConfiguration, tls: NIOSSLContext?) {
            self.tls = tls
            heartbeatInterval = configuration.heartbeatInterval
            heartbeatMissLimit = configuration.heartbeatMissLimit
            session = ConnectionLimitsInEffect(configuration.limits)
            httpIdleTimeout = .nanoseconds(configuration.limits.adminIdleTimeout.nanoseconds)
            httpRequestTimeout = .nanoseconds(configuration.limits.adminRequestTimeout.nanoseconds)
        }
    }

    private let box: NIOLockedValueBox<Snapshot>

    init(_ snapshot: Snapshot) { box = NIOLockedValueBox(snapshot) }

    /// What a connection accepted now gets.
    var current: Snapshot { box.withLockedValue { $0 } }

    /// A reload: connections accepted from now on get `snapshot`.
    func replace(with snapshot: Snapshot) { box.withLockedValue { $0 = snapshot } }
}
