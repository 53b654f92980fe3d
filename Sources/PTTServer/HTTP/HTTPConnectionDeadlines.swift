import Logging
import NIOCore

extension AdminDeadlines {
    /// The deadlines an admin or web connection accepted with `settings` gets: `httpIdleTimeout` between requests,
    /// `httpRequestTimeout` per request; `timedOut` counts a close at one in the listener's metrics.
    convenience init(
        _ settings: ListenerSettings.Snapshot, listener: String, logger: Logger,
        timedOut: @escaping @Sendable (AdminDeadlinePhase) -> Void
    ) {
        self.init(
            idleTimeout: settings.httpIdleTimeout, requestTimeout: settings.httpRequestTimeout, listener: listener,
            logger: logger, timedOut: timedOut)
    }
}
