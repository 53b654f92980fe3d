import Logging
import NIOConcurrencyHelpers
import NIOCore
import PTTCore

/// One listener's admission: every connection it accepts asks ``AdmissionControl`` (the listener's cap, the
/// per-address cap, the failed-hello block) before it gets a pipeline. A refused connection is counted by reason
/// and logged once per spell (the caller closes it); an admitted one is counted open until it closes, and then
/// reports whether it authenticated, so an address whose connections keep failing is blocked for a while. The
/// admitted connections are tracked in ``connections`` until they close, for the listener's shutdown.
///
/// The control, admin and web listeners each have one, configured with their own limits and counters (the admin
/// listener's only bound is its cap: ``adminLimits(_:)``). The lock is taken once per accept and once per close, on
/// any event loop.
final class ListenerAdmission: Sendable {
    /// What the listener counts, in its own metrics.
    struct Counters: Sendable {
        /// A connection refused at accept, and why.
        var refused: @Sendable (AdmissionControl.Refusal) -> Void
        /// A connection admitted; ``closed`` when it closes.
        var opened: @Sendable () -> Void
        var closed: @Sendable () -> Void = {}
        /// An address blocked after failed hellos.
        var blocked: @Sendable () -> Void = {}
    }

    /// Names the listener in the log (`control`, `admin`, `web`).
    let listener: String
    /// The connections admitted and still open.
    let connections = OpenConnections()
    private let control: NIOLockedValueBox<AdmissionControl>
    private let counters: Counters
    private let clock: any PTTClock
    private let logger: Logger

    init(
        listener: String, limits: ConnectionLimits, maxConnections: Int, counters: Counters, clock: any PTTClock,
        logger: Logger
    ) {
        self.listener = listener
        self.control = NIOLockedValueBox(AdmissionControl(limits: limits, maxConnections: maxConnections))
        self.counters = counters
        self.clock = clock
        self.logger = logger
    }

    /// Limits with no per-address bound and no block: a listener whose only bound is `maxConnections`.
    static func adminLimits(_ limits: ConnectionLimits) -> ConnectionLimits {
        var unbounded = limits
        unbounded.perAddressConnections = .max
        unbounded.failedHellosPerAddress = .max
        unbounded.addressBlock = .zero
        return unbounded
    }

    /// `child` was just accepted: if it is admitted, it is counted and tracked (``OpenConnections``, with
    /// `closedByPlane`) until it closes, when `authenticated` is asked; nil if it is refused and must be closed.
    @discardableResult
    func admit(
        _ child: any NIOCore.Channel, closedByPlane: Bool = false,
        authenticated: @escaping @Sendable () -> Bool = { true }
    ) -> OpenConnections.Connection? {
        let remote = child.remoteAddress
        let address = remote?.ipAddress ?? "unknown"
        let loopback = remote.map(ControlServer.isLoopback) ?? false
        let (decision, limit) = control.withLockedValue { control in
            let decision = control.connectionOpened(from: address, loopback: loopback, now: clock.now())
            guard case .refuse(let why, _) = decision else { return (decision, "") }
            return (decision, Self.limitText(why, control.limits, control.maxConnections))
        }
        if case .refuse(let why, let first) = decision {
            counters.refused(why)
            if first {
                logger.warning(
                    "\(listener) connection refused",
                    metadata: ["remote": "\(address)", "reason": "\(why.rawValue)", "limit": "\(limit)"])
            }
            return nil
        }
        counters.opened()
        child.closeFuture.whenComplete { [self] _ in
            closed(address: address, loopback: loopback, authenticated: authenticated())
        }
        return connections.opened(child, closedByPlane: closedByPlane)
    }

    private func closed(address: String, loopback: Bool, authenticated: Bool) {
        let now = clock.now()
        let notice = control.withLockedValue {
            $0.connectionClosed(from: address, loopback: loopback, authenticated: authenticated, now: now)
        }
        counters.closed()
        if case .blocked(let address, let failures, let until) = notice {
            counters.blocked()
            logger.warning(
                "address blocked after failed hellos",
                metadata: [
                    "listener": "\(listener)", "remote": "\(address)", "failures": "\(failures)",
                    "seconds": "\(until.since(now).components.seconds)",
                ])
        }
    }

    /// A configuration reload: per-address limits and blocks apply to connections accepted from now on.
    func update(limits: ConnectionLimits) { control.withLockedValue { $0.limits = limits } }

    /// Connections admitted and not yet closed.
    var open: Int { control.withLockedValue { $0.open } }

    private static func limitText(
        _ why: AdmissionControl.Refusal, _ limits: ConnectionLimits, _ maxConnections: Int
    ) -> String {
        switch why {
        case .serverFull: "\(maxConnections) connections"
        case .addressFull: "\(limits.perAddressConnections) connections per address"
        case .addressBlocked:
            "\(limits.failedHellosPerAddress) failed hellos in \(limits.failedHelloWindow.components.seconds) s"
        }
    }
}
