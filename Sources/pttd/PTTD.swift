import ArgumentParser
import Foundation
import Logging
import PTTCore
import PTTProtocol
import PTTServer
import ServiceLifecycle

/// `pttd`: the Push-To-Talk channel relay server.
@main
struct PTTD: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pttd",
        abstract: "Push-To-Talk channel relay server.",
        discussion: """
            Settings come from built-in defaults, then the config file (--config, or DATA/config.json if it exists), \
            then these flags. Data (database, TLS certificate, admin token, runtime.json) lives in --data.

            SIGHUP (or pttctl reload) reads the config file again and applies what can change while pttd runs \
            (timers, wake and APNs settings, limits, log level, recording, catch-up, the TLS certificate's files) \
            without dropping a connection or a talk burst; addresses, ports and TLS on/off need a restart. \
            A config file with an error is refused, naming the setting, and the running configuration stays. \
            SIGTERM stops pttd gracefully.
            """)

    @Option(name: .long, help: "Data directory.")
    var data = "./.pttd"

    @Option(name: .long, help: "JSON config file (default: DATA/config.json when present).")
    var config: String?

    @Option(name: .long, help: "Control listener address.")
    var controlHost: String?

    @Option(name: .long, help: "Control listener TCP port (0 picks a free port; see DATA/runtime.json).")
    var controlPort: Int?

    @Option(name: .long, help: "Audio relay UDP port.")
    var mediaPort: Int?

    @Option(name: .long, help: "Admin API address (keep it on loopback unless you need it elsewhere).")
    var adminHost: String?

    @Option(name: .long, help: "Admin API port (0 picks a free port).")
    var adminPort: Int?

    @Option(name: .long, help: "Web listener address: the browser walkie-talkie (HTTPS with the control certificate).")
    var webHost: String?

    @Option(name: .long, help: "Web listener TCP port (default 7702; 0 picks a free port; see DATA/runtime.json).")
    var webPort: Int?

    @Flag(name: .long, help: "Do not serve the browser walkie-talkie (config \"web\": false).")
    var noWeb = false

    @Flag(name: .long, help: "Serve the control protocol without TLS (for tests only).")
    var noTLS = false

    @Option(name: .long, help: "Heartbeat interval in milliseconds.")
    var heartbeatIntervalMs: Int?

    @Option(name: .long, help: "Media protection: srtp or none.")
    var mediaSecurity: String?

    @Option(
        name: .customLong("catch-up"),
        help:
            "Who hears the current burst from its first packet when reaching the relay mid-burst: woken, late-joiners or off (config catchUp.mode)."
    )
    var catchUp: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Run as a node of a cluster whose data is in this PostgreSQL database (config cluster.database).",
            discussion: "postgres://USER[:PASSWORD]@HOST[:PORT]/DB, ?sslmode=disable|require, ?host=/socket/dir",
            valueName: "url"))
    var cluster: String?

    @Option(
        name: .long,
        help: "This node's name in the cluster (config cluster.node; default: the host name).")
    var node: String?

    @Option(
        name: .long,
        help: "The TCP port for the other nodes' links (config cluster.linkPort; default 7703; 0: any free port).")
    var linkPort: Int?

    @Option(
        name: .long,
        help:
            "The address the other nodes reach this node at (config cluster.address; default: --control-host, or the host name)."
    )
    var advertise: String?

    @Option(
        name: .long,
        help:
            "Put a backup (pttctl backup) in place as DATA's database and exit, without starting; the next start serves it."
    )
    var restore: String?

    @Flag(name: .long, help: "With --restore: replace the database in place (kept as pttd.sqlite.before-restore-TIME).")
    var force = false

    @Option(
        name: .long,
        help:
            "Log level: trace, debug, info, notice, warning, error, critical (default: the config's logLevel, or info)."
    )
    var logLevel: String?

    @Option(
        name: .long,
        help:
            "Log format: text (readable, the default) or json (one JSON object per line: time, level, message, fields)."
    )
    var logFormat: String = "text"

    func run() async throws {
        if let logLevel, Logger.Level(rawValue: logLevel) == nil {
            throw ValidationError("unknown log level '\(logLevel)'")
        }
        guard logFormat == "text" || logFormat == "json" else {
            throw ValidationError("--log-format must be text or json, got '\(logFormat)'")
        }
        let dataDirectory = DataDirectory(path: data)
        if let restore {
            do {
                let outcome = try DataRestore.restore(from: restore, into: dataDirectory, force: force)
                print("restored \(restore) into \(dataDirectory.database): \(outcome.summary)")
                if let kept = outcome.keptAs { print("the database that was there is kept as \(kept)") }
                print("start pttd with --data \(data) to serve it")
                return
            } catch {
                throw ValidationError("cannot restore: \(error)")
            }
        }
        let source = configurationSource(dataDirectory)
        let settings: ServerConfiguration
        do { settings = try source.read() } catch { throw ValidationError(error.description) }
        let levels = LogLevelControl(settings.logLevel ?? .info)
        let json = logFormat == "json"
        LoggingSystem.bootstrap { label in
            if json { return ControlledLevelLogHandler(JSONLogHandler(label: label), control: levels) }
            return ControlledLevelLogHandler(StreamLogHandler.standardError(label: label), control: levels)
        }
        let logger = Logger(label: "pttd")

        let server = PTTDaemon(
            configuration: settings, dataDirectory: dataDirectory, logger: logger, source: source, logLevels: levels)
        let reloads = ReloadSignal(server: server, logger: logger)
        defer { reloads.cancel() }
        let group = ServiceGroup(
            configuration: .init(
                services: [.init(service: server)], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }

    /// The config file (asked again at every reload: DATA/config.json may appear later) and these flags over it.
    func configurationSource(_ dataDirectory: DataDirectory) -> ConfigurationSource {
        let flags = Flags(
            controlHost: controlHost, controlPort: controlPort, mediaPort: mediaPort, adminHost: adminHost,
            adminPort: adminPort, webHost: webHost, webPort: webPort, noWeb: noWeb, noTLS: noTLS,
            heartbeatIntervalMs: heartbeatIntervalMs, mediaSecurity: mediaSecurity, catchUp: catchUp,
            logLevel: logLevel, cluster: cluster, node: node, linkPort: linkPort, advertise: advertise)
        let config = self.config
        return ConfigurationSource(
            file: {
                config ?? (FileManager.default.fileExists(atPath: dataDirectory.config) ? dataDirectory.config : nil)
            },
            overrides: { settings throws(ConfigurationError) in try flags.apply(to: &settings) })
    }
}

/// The command line's settings, which win over the config file's, at start and at every reload.
struct Flags: Sendable {
    var controlHost: String?
    var controlPort: Int?
    var mediaPort: Int?
    var adminHost: String?
    var adminPort: Int?
    var webHost: String?
    var webPort: Int?
    var noWeb: Bool
    var noTLS: Bool
    var heartbeatIntervalMs: Int?
    var mediaSecurity: String?
    var catchUp: String?
    var logLevel: String?
    var cluster: String?
    var node: String?
    var linkPort: Int?
    var advertise: String?

    func apply(to settings: inout ServerConfiguration) throws(ConfigurationError) {
        if let controlHost { settings.controlHost = controlHost }
        if let controlPort { settings.controlPort = controlPort }
        if let mediaPort { settings.mediaPort = mediaPort }
        if let adminHost { settings.adminHost = adminHost }
        if let adminPort { settings.adminPort = adminPort }
        if let webHost { settings.webHost = webHost }
        if let webPort { settings.webPort = webPort }
        if noWeb { settings.web = false }
        if noTLS { settings.tls = false }
        if let heartbeatIntervalMs { settings.heartbeatInterval = .milliseconds(heartbeatIntervalMs) }
        if let mediaSecurity {
            guard let security = MediaSecurity(rawValue: mediaSecurity) else {
                throw .invalid("--media-security must be \(MediaSecurity.spelled), got '\(mediaSecurity)'")
            }
            settings.mediaSecurity = security
        }
        if let catchUp {
            guard let mode = CatchUpMode(rawValue: catchUp) else {
                throw .invalid("--catch-up must be \(CatchUpMode.spelled), got '\(catchUp)'")
            }
            settings.catchUp.mode = mode
        }
        if let logLevel, let level = Logger.Level(rawValue: logLevel) { settings.logLevel = level }
        if let cluster {
            var settled = settings.cluster ?? ClusterSettings(database: cluster, node: ClusterSettings.defaultNodeName)
            settled.database = cluster
            if let node { settled.node = node }
            settings.cluster = settled
        } else if let node {
            guard settings.cluster != nil else {
                throw .invalid("--node names this pttd in a cluster: give --cluster postgres://… too")
            }
            settings.cluster?.node = node
        }
        if linkPort != nil || advertise != nil {
            guard settings.cluster != nil else {
                throw .invalid(
                    "--link-port and --advertise are for a node of a cluster: give --cluster postgres://… too")
            }
            if let linkPort { settings.cluster?.linkPort = linkPort }
            if let advertise { settings.cluster?.address = advertise }
        }
    }
}
