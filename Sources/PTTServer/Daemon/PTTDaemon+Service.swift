import ServiceLifecycle

extension PTTDaemon {
    /// `Service`: starts, then runs its listeners (relay, control, admin) as services of one `ServiceGroup` until
    /// graceful shutdown is requested (SIGTERM/SIGINT in `pttd`) or a listener's socket closes by itself; then the
    /// listeners close first (admin, control, relay: the reverse of their start), and ``shutdown()`` tells the
    /// connected clients and closes them.
    public func run() async throws {
        try await start()
        guard let running else { return }
        let listeners = ServiceGroup(
            configuration: .init(
                services: [
                    .init(service: ListenerService(name: "relay", channel: running.relay.datagramChannel!)),
                    .init(service: ListenerService(name: "control", channel: running.control.channel)),
                    .init(service: ListenerService(name: "admin", channel: running.admin.channel)),
                ] + (running.web.map { [.init(service: ListenerService(name: "web", channel: $0.channel))] } ?? []),
                logger: logger))
        do {
            try await withGracefulShutdownHandler {
                try await listeners.run()
            } onGracefulShutdown: {
                Task { await listeners.triggerGracefulShutdown() }
            }
        } catch {
            logger.error("a listener failed", metadata: ["error": "\(error)"])
            try await shutdown()
            throw error
        }
        try await shutdown()
    }

    /// Errors of the daemon's life cycle.
    enum DaemonError: Error, CustomStringConvertible {
        case alreadyStarted
        var description: String { "the daemon was already started; make a new one" }
    }
}
