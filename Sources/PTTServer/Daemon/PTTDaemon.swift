import APNs
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL
import PTTCore
import PTTProtocol
import PTTRelay
import PTTStore
import ServiceLifecycle

/// The whole `pttd` server: storage, control listener, admin listener. A swift-service-lifecycle `Service`.
///
/// ```swift
/// let server = PTTDaemon(configuration: config, dataDirectory: DataDirectory(path: ".pttd"), logger: logger)
/// try await server.start()      // listening; runtime.json written
/// ...
/// try await server.shutdown()
/// ```
public final class PTTDaemon: Service, @unchecked Sendable {
    // @unchecked: `state` changes in start() and shutdown(), which the owner calls one after the other; what a
    // reload changes is in `live`, behind its lock.
    public let dataDirectory: DataDirectory
    public let metrics: ServerMetrics
    let logger: Logger
    let clock: any PTTClock
    let wallClock: any WallClock
    let group: EventLoopGroup
    private let ownsGroup: Bool
    var state = State.initial
    /// Where a reload reads the configuration again; nil: this server cannot reload.
    let source: ConfigurationSource?
    /// The process's log level, which a reload sets (`logLevel`); nil: reloads leave levels alone.
    let logLevels: LogLevelControl?
    /// What a reload changes.
    let live: NIOLockedValueBox<Live>

    /// The configuration the server runs with: the one it started with, as reloads changed it.
    public var configuration: ServerConfiguration { live.withLockedValue { $0.configuration } }

    /// Where the daemon is in its life.
    enum State {
        /// Created, not started.
        case initial
        /// Storage open, listeners bound.
        case running(Running)
        /// Shut down; it does not start again.
        case stopped
    }

    var running: Running? {
        if case .running(let running) = state { running } else { nil }
    }

    /// - Parameters:
    ///   - source: where ``reload()`` reads the configuration again (`pttd`: the config file and its flags).
    ///   - logLevels: the process's log level, set by a reload from `logLevel`.
    public init(
        configuration: ServerConfiguration, dataDirectory: DataDirectory, logger: Logger,
        clock: any PTTClock = UptimeClock(), wallClock: any WallClock = SystemWallClock(), group: EventLoopGroup? = nil,
        source: ConfigurationSource? = nil, logLevels: LogLevelControl? = nil
    ) {
        self.live = NIOLockedValueBox(Live(configuration: configuration))
        self.source = source
        self.logLevels = logLevels
        self.dataDirectory = dataDirectory
        self.logger = logger
        self.clock = clock
        self.wallClock = wallClock
        self.metrics = ServerMetrics()
        self.group = group ?? MultiThreadedEventLoopGroup(numberOfThreads: System.coreCount)
        self.ownsGroup = group == nil
    }

    /// Where the server listens, once started.
    public var runtimeInfo: RuntimeInfo? { live.withLockedValue { $0.info } }
    public var adminToken: String? { running?.adminToken }

    /// Opens storage, binds the listeners and writes `runtime.json`.
    public func start() async throws {
        guard case .initial = state else { throw DaemonError.alreadyStarted }
        try configuration.validate()
        try dataDirectory.create()
        let (store, cluster) = try await openStorage()
        let adminToken = try dataDirectory.loadOrCreateAdminToken(logger: logger)

        var tls: NIOSSLContext?
        if configuration.tls {
            let (identity, created) = try TLSIdentity.resolve(configuration, in: dataDirectory)
            tls = try Self.tlsContext(identity, configuration)
            live.withLockedValue { $0.identity = identity }
            logger.notice(
                created
                    ? "created a self-signed TLS certificate"
                    : "loaded \(identity.isOperators ? "the operator's" : "the self-signed") TLS certificate",
                metadata: ["sha256": "\(identity.fingerprint)", "file": "\(identity.certificateFile)"])
            certificateLoaded(identity)
        } else {
            logger.warning("TLS is off: control connections are in clear text (--no-tls)")
        }

        var apns: APNsClient?
        if let settings = configuration.apns {
            apns = try APNsClient(settings: settings, eventLoopGroup: group, logger: logger)
            logger.notice(
                "APNs configured",
                metadata: [
                    "endpoint": "\(settings.baseURL)", "topic": "\(settings.topic)", "keyId": "\(settings.keyId)",
                ])
        } else {
            logger.info("APNs not configured: wakes go over Local Push connections only")
        }
        live.withLockedValue { $0.apns = apns }
        // The control plane's own thread: storage writes (fsync) there never delay a connection's TLS or reads.
        let planeGroup = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        // The relay's own thread: control and admin connections run on `group`, never on it.
        let relayGroup = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        // The recorder's own thread: file writes and syncs never delay a packet or a request.
        let recordingGroup = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        do {
            let recorder = BurstRecorder(
                eventLoop: recordingGroup.next(), directory: dataDirectory.recordings, store: store,
                configuration: configuration.recording, metrics: metrics.recordings, logger: logger,
                now: { [wallClock] in wallClock.now() })
            try recorder.recover()
            try await listen(
                store: store, adminToken: adminToken, tls: tls, apns: apns,
                groups: (planeGroup, relayGroup, recordingGroup), recorder: recorder)
            recorder.startRetention()
            if let cluster, let running { try await join(cluster, running: running) }
        } catch {
            await cluster?.stop()
            (store as? PostgresStore)?.close()
            await apns?.shutdown()
            try? await planeGroup.shutdownGracefully()
            try? await relayGroup.shutdownGracefully()
            try? await recordingGroup.shutdownGracefully()
            throw error
        }
    }

    /// Builds the control plane and binds the relay, control and admin listeners.
    private func listen(
        store: any Storage, adminToken: String, tls: NIOSSLContext?, apns: APNsClient?,
        groups: (
            plane: MultiThreadedEventLoopGroup, relay: MultiThreadedEventLoopGroup,
            recording: MultiThreadedEventLoopGroup
        ),
        recorder: BurstRecorder
    ) async throws {
        let (planeGroup, relayGroup, recordingGroup) = groups
        let controlLoop = planeGroup.next()
        let relayLoop = relayGroup.next()
        let plane = try ControlPlane(
            eventLoop: controlLoop, configuration: configuration, store: store, metrics: metrics,
            clock: clock, wallClock: wallClock, apns: apns, logger: logger)
        let relay = MediaRelay(
            eventLoop: relayLoop, secure: configuration.mediaSecurity == .srtp,
            implicitFloorRequest: configuration.implicitFloorRequest,
            silenceTimeout: configuration.mediaSilenceTimeout, catchUp: configuration.catchUp,
            maxBurstDuration: configuration.floor.maxTalkTime + configuration.floor.endOfMediaTimeout,
            metrics: metrics.relay, logger: logger)
        try await relay.bind(host: configuration.controlHost, port: configuration.mediaPort)
        relay.report = { report in plane.eventLoop.execute { plane.run(plane.relayLink.reported(report)) } }
        relay.recordingSink = { recorder.handle($0) }
        try await controlLoop.submit {
            plane.recordings.recorder = recorder
            plane.start(relay: relay)
        }.get()
        let descriptors = DescriptorBudget.raise(
            configuredMax: configuration.maxConnections,
            adminMaxConnections: configuration.limits.adminMaxConnections)
        if descriptors.maxControlConnections < configuration.maxConnections {
            logger.warning(
                "fewer control connections than maxConnections: the descriptor limit does not allow more",
                metadata: [
                    "maxConnections": "\(configuration.maxConnections)",
                    "allowed": "\(descriptors.maxControlConnections)",
                    "descriptorLimit": "\(descriptors.limit)",
                ])
        }
        let settings = ListenerSettings(.init(configuration: configuration, tls: tls))
        let control = try await ControlServer.bind(
            host: configuration.controlHost, port: configuration.controlPort, group: group,
            settings: settings, plane: plane, configuration: configuration,
            maxConnections: descriptors.maxControlConnections, clock: clock,
            metrics: metrics, logger: logger)
        let admin: AdminServer
        let operations = AdminRouter.Operations(
            reload: { [weak self] eventLoop in
                guard let self else { return eventLoop.makeSucceededFuture(.error(AdminError(.notFound, "stopped"))) }
                return eventLoop.makeFutureWithTask { await self.reloadResponse() }
            },
            certificate: { [weak self] in self?.certificateResponse() ?? .error(AdminError(.notFound, "stopped")) })
        do {
            admin = try await AdminServer.bind(
                host: configuration.adminHost, port: configuration.adminPort, group: group,
                router: AdminRouter(
                    plane: plane, metrics: metrics,
                    backups: Backups(store: store, directory: dataDirectory.path, eventLoop: recordingGroup.next()),
                    operations: operations),
                token: adminToken,
                limits: configuration.limits, settings: settings, metrics: metrics, logger: logger)
        } catch {
            try? await control.channel.close()
            await relay.close()
            throw error
        }
        let web: WebServer?
        do {
            web = try await bindWeb(settings: settings, plane: plane)
        } catch {
            try? await control.channel.close()
            try? await admin.channel.close()
            await relay.close()
            throw error
        }
        let adminHost = configuration.adminHost.contains(":") ? "[\(configuration.adminHost)]" : configuration.adminHost
        let webURL = web.map { WebAddress.url(host: configuration.webHost, port: $0.port, tls: configuration.tls) }
        try await plane.eventLoop.submit { plane.signInLinks.webBase = webURL }.get()
        let info = RuntimeInfo(
            pid: getpid(), controlHost: configuration.controlHost, controlPort: control.port, mediaPort: relay.port,
            adminURL: "http://\(adminHost):\(admin.port)", tls: configuration.tls,
            fingerprint: live.withLockedValue { $0.identity?.fingerprint }, webURL: webURL)
        try writeRuntimeInfo(info)
        state = .running(
            Running(
                plane: plane, planeGroup: planeGroup, relayGroup: relayGroup, control: control, admin: admin,
                web: web, relay: relay, recorder: recorder, recordingGroup: recordingGroup,
                adminToken: adminToken, settings: settings))
        let directory = try await plane.eventLoop.submit {
            (plane.directory.channels.count, plane.directory.users.count, plane.directory.memberships.count)
        }.get()
        logger.notice(
            "pttd listening",
            metadata: [
                "control": "\(configuration.controlHost):\(control.port)\(configuration.tls ? " (TLS)" : "")",
                "media": "udp \(configuration.controlHost):\(relay.port) (\(configuration.mediaSecurity))",
                "admin": "\(info.adminURL)", "web": "\(webURL ?? "off")", "data": "\(dataDirectory.path)",
                "channels": "\(directory.0)", "users": "\(directory.1)", "memberships": "\(directory.2)",
            ])
    }

    /// The web listener (the browser walkie-talkie), with the control certificate, unless `web` is off.
    private func bindWeb(settings: ListenerSettings, plane: ControlPlane) async throws -> WebServer? {
        guard configuration.web else { return nil }
        return try await WebServer.bind(
            WebServer.Setup(
                host: configuration.webHost, port: configuration.webPort, settings: settings,
                relayHost: WebMediaGateway.relayHost(forBindHost: configuration.controlHost),
                configuration: configuration),
            group: group, plane: plane, clock: clock, metrics: metrics, logger: logger)
    }

    /// Stops listening, tells connected clients the server is shutting down, and closes them.
    public func shutdown() async throws {
        if let running {
            // First out of the cluster: its name and channels are free for the other nodes at once, and nothing
            // from the database reaches a plane that is stopping.
            await running.cluster?.stop()
            await running.nodeLinks?.close()
            try? await running.control.channel.close()
            try? await running.admin.channel.close()
            await running.admin.closeConnections(grace: .milliseconds(100))
            try? await running.web?.channel.close()
            // Closing the relay also drops its report callback: the plane and the relay refer to each other, a cycle
            // that would keep every stopped server's plane, store (an open SQLite connection) and relay (LSan).
            await running.relay.close()
            // The relay hands nothing more over: open recordings are finished.
            await running.recorder.close()
            let plane = running.plane
            try? await plane.eventLoop.submit { plane.stop() }.get()
            // All were told; one that no longer reads never answers close_notify: cut off after 0.1 s, both listeners.
            async let controlClosed: Void = running.control.closeConnections(grace: .milliseconds(100), logger: logger)
            await (running.web?.closeConnections(grace: .milliseconds(100), logger: logger), controlClosed)
            // The APNs client in use (a reload may have replaced the first), and those replaced.
            let clients = live.withLockedValue { live in
                defer { live.retiredAPNs = [] }
                return live.retiredAPNs + (live.apns.map { [$0] } ?? [])
            }
            for client in clients { await client.shutdown() }
            // Connections report their close to the plane: let them finish before its thread stops, for at most a
            // second (a peer that does not read is cut off as the loops stop): pttd stops within 2 s of SIGTERM.
            let deadline = ContinuousClock.now + min(configuration.limits.closeGrace, .seconds(1))
            while running.control.openConnections > 0, ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(10))
            }
            await running.plane.storage.shutdown()  // writes handed over are stored while the plane's loop runs
            try? await running.planeGroup.shutdownGracefully()
            try? await running.relayGroup.shutdownGracefully()
            try? await running.recordingGroup.shutdownGracefully()
            (running.plane.store as? PostgresStore)?.close()
            state = .stopped
            logger.notice("pttd stopped")
        }
        if ownsGroup { try await group.shutdownGracefully() }
    }
}
