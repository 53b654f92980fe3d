import APNs
import Foundation
import Logging
import PTTCore
import PTTProtocol

/// Everything `pttd` can be told. Built-in defaults, then the config file, then command-line flags.
///
/// The config file is JSON with these keys, all optional (Docs/OPERATIONS in README):
/// `controlHost`, `controlPort`, `mediaPort`, `adminHost`, `adminPort`, `tls`, `tlsCertificate`, `tlsKey`, `logLevel`,
/// `web`, `webHost`, `webPort`,
/// `webMaxConnections`, `heartbeatIntervalMs`,
/// `heartbeatMissLimit`, `createChannelsOnJoin`, `mediaSecurity`, `implicitFloorRequest`, `mediaSilenceTimeoutMs`,
/// `maxConnections`, `memberEventsUpTo`, `catchUp` (see ``CatchUpConfiguration``), `recording` (see ``RecordingConfiguration``), `floor` (see ``FloorConfiguration``), `wake` (see ``WakeConfiguration``), `limits` (see
/// ``ConnectionLimits``) and `apns` (see ``APNsSettings``).
public struct ServerConfiguration: Sendable, Equatable {
    /// Address the control listener binds (all interfaces by default: devices on the LAN connect here).
    public var controlHost = "0.0.0.0"
    public var controlPort = 7700
    /// UDP port of the audio relay; announced to clients in `joined`.
    public var mediaPort = 7700
    /// Address of the admin API; loopback by default so the LAN cannot reach it.
    public var adminHost = "127.0.0.1"
    public var adminPort = 7701
    /// Whether `pttd` serves the browser walkie-talkie (HTTPS with the control certificate, or HTTP with `--no-tls`).
    public var web = true
    /// Address of the web listener (all interfaces by default: browsers on the LAN open it).
    public var webHost = "0.0.0.0"
    public var webPort = 7702
    /// Largest number of web connections (page loads and browser members) at once; more are refused at accept.
    public var webMaxConnections = 1_000
    /// TLS on the control connection (on by default; `--no-tls` is for tests).
    public var tls = true
    /// The operator's certificate (PEM: the server's certificate first, then its chain) and private key (PEM),
    /// used instead of the self-signed one in the data directory. Both or neither; re-read on every reload.
    public var tlsCertificate: String?
    public var tlsKey: String?
    /// The log level (`pttd --log-level` wins over it); nil: info.
    public var logLevel: Logger.Level?
    public var heartbeatInterval: Duration = .seconds(10)
    /// Unacknowledged heartbeats after which a session is closed.
    public var heartbeatMissLimit = 3
    /// Whether joining an unknown channel name creates it.
    public var createChannelsOnJoin = true
    /// `srtp` (default) or `none`.
    public var mediaSecurity = MediaSecurity.srtp
    /// Whether the first audio from a member while the floor is idle asks for the floor.
    public var implicitFloorRequest = true
    /// A member whose relay has heard nothing (audio or keep-alive) for this long is not reachable by audio.
    public var mediaSilenceTimeout: Duration = .seconds(30)
    public var floor = FloorConfiguration()
    /// Largest number of control connections at once; more are refused at accept.
    public var maxConnections = 10_000
    /// The notifier's limits (wake deadline, queue and storage bounds).
    public var wake = WakeConfiguration()
    /// APNs credentials; without them wakes go over Local Push connections only.
    public var apns: APNsSettings?
    /// Who hears the current burst from its start when they reach the relay during it, and how much is kept.
    public var catchUp = CatchUpConfiguration()
    /// Channels recorded by configuration, and how long recordings are kept.
    public var recording = RecordingConfiguration()
    /// Deadlines, queue bounds and per-address limits of control and admin connections.
    public var limits = ConnectionLimits()
    /// A member whose `join` does not say `memberEvents` is told of other members joining and leaving
    /// only if the channel had at most this many members (itself included) when it joined.
    public var memberEventsUpTo = MemberEventPolicy().upTo
    /// This pttd as a node of a cluster on PostgreSQL; nil for one server on its own SQLite file.
    public var cluster: ClusterSettings?
    /// Private calls: ring and silence timeouts, who may call whom (Docs/CALLS-DESIGN.md).
    public var calls = CallConfiguration()

    public init() {}
}

extension ServerConfiguration: Codable {
    enum CodingKeys: String, CodingKey {
        case controlHost, controlPort, mediaPort, adminHost, adminPort, tls, heartbeatIntervalMs, heartbeatMissLimit
        case createChannelsOnJoin, mediaSecurity, floor, maxConnections, implicitFloorRequest, mediaSilenceTimeoutMs
        case wake, apns, limits, memberEventsUpTo, catchUp, recording, web, webHost, webPort, webMaxConnections
        case tlsCertificate, tlsKey, logLevel, cluster, calls
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        var config = ServerConfiguration()
        config.controlHost = try c.decodeIfPresent(String.self, forKey: .controlHost) ?? config.controlHost
        config.controlPort = try c.decodeIfPresent(Int.self, forKey: .controlPort) ?? config.controlPort
        config.mediaPort = try c.decodeIfPresent(Int.self, forKey: .mediaPort) ?? config.mediaPort
        config.adminHost = try c.decodeIfPresent(String.self, forKey: .adminHost) ?? config.adminHost
        config.adminPort = try c.decodeIfPresent(Int.self, forKey: .adminPort) ?? config.adminPort
        config.tls = try c.decodeIfPresent(Bool.self, forKey: .tls) ?? config.tls
        config.tlsCertificate = try c.decodeIfPresent(String.self, forKey: .tlsCertificate)
        config.tlsKey = try c.decodeIfPresent(String.self, forKey: .tlsKey)
        if let text = try c.decodeIfPresent(String.self, forKey: .logLevel) {
            guard let level = Logger.Level(rawValue: text) else {
                throw ConfigurationError.invalid(
                    "logLevel must be one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")), got '\(text)'"
                )
            }
            config.logLevel = level
        }
        config.web = try c.decodeIfPresent(Bool.self, forKey: .web) ?? config.web
        config.webHost = try c.decodeIfPresent(String.self, forKey: .webHost) ?? config.webHost
        config.webPort = try c.decodeIfPresent(Int.self, forKey: .webPort) ?? config.webPort
        config.webMaxConnections =
            try c.decodeIfPresent(Int.self, forKey: .webMaxConnections) ?? config.webMaxConnections
        if let ms = try c.decodeIfPresent(Int.self, forKey: .heartbeatIntervalMs) {
            config.heartbeatInterval = .milliseconds(ms)
        }
        config.heartbeatMissLimit =
            try c.decodeIfPresent(Int.self, forKey: .heartbeatMissLimit) ?? config.heartbeatMissLimit
        config.createChannelsOnJoin =
            try c.decodeIfPresent(Bool.self, forKey: .createChannelsOnJoin) ?? config.createChannelsOnJoin
        if let text = try c.decodeIfPresent(String.self, forKey: .mediaSecurity) {
            guard let security = MediaSecurity(rawValue: text) else {
                throw ConfigurationError.invalid("mediaSecurity must be \(MediaSecurity.spelled), got '\(text)'")
            }
            config.mediaSecurity = security
        }
        config.floor = try c.decodeIfPresent(FloorConfiguration.self, forKey: .floor) ?? config.floor
        config.maxConnections = try c.decodeIfPresent(Int.self, forKey: .maxConnections) ?? config.maxConnections
        config.implicitFloorRequest =
            try c.decodeIfPresent(Bool.self, forKey: .implicitFloorRequest) ?? config.implicitFloorRequest
        if let ms = try c.decodeIfPresent(Int.self, forKey: .mediaSilenceTimeoutMs) {
            config.mediaSilenceTimeout = .milliseconds(ms)
        }
        config.wake = try c.decodeIfPresent(WakeConfiguration.self, forKey: .wake) ?? config.wake
        config.apns = try c.decodeIfPresent(APNsSettings.self, forKey: .apns)
        config.limits = try c.decodeIfPresent(ConnectionLimits.self, forKey: .limits) ?? config.limits
        config.memberEventsUpTo = try c.decodeIfPresent(Int.self, forKey: .memberEventsUpTo) ?? config.memberEventsUpTo
        config.catchUp = try c.decodeIfPresent(CatchUpConfiguration.self, forKey: .catchUp) ?? config.catchUp
        config.recording = try c.decodeIfPresent(RecordingConfiguration.self, forKey: .recording) ?? config.recording
        config.cluster = try c.decodeIfPresent(ClusterSettings.self, forKey: .cluster)
        config.calls = try c.decodeIfPresent(CallConfiguration.self, forKey: .calls) ?? config.calls
        self = config
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(controlHost, forKey: .controlHost)
        try c.encode(controlPort, forKey: .controlPort)
        try c.encode(mediaPort, forKey: .mediaPort)
        try c.encode(adminHost, forKey: .adminHost)
        try c.encode(adminPort, forKey: .adminPort)
        try c.encode(tls, forKey: .tls)
        try c.encodeIfPresent(tlsCertificate, forKey: .tlsCertificate)
        try c.encodeIfPresent(tlsKey, forKey: .tlsKey)
        try c.encodeIfPresent(logLevel?.rawValue, forKey: .logLevel)
        try c.encode(web, forKey: .web)
        try c.encode(webHost, forKey: .webHost)
        try c.encode(webPort, forKey: .webPort)
        try c.encode(webMaxConnections, forKey: .webMaxConnections)
        try c.encode(Int(heartbeatInterval.milliseconds), forKey: .heartbeatIntervalMs)
        try c.encode(heartbeatMissLimit, forKey: .heartbeatMissLimit)
        try c.encode(createChannelsOnJoin, forKey: .createChannelsOnJoin)
        try c.encode(mediaSecurity, forKey: .mediaSecurity)
        try c.encode(floor, forKey: .floor)
        try c.encode(maxConnections, forKey: .maxConnections)
        try c.encode(implicitFloorRequest, forKey: .implicitFloorRequest)
        try c.encode(Int(mediaSilenceTimeout.milliseconds), forKey: .mediaSilenceTimeoutMs)
        try c.encode(wake, forKey: .wake)
        try c.encodeIfPresent(apns, forKey: .apns)
        try c.encode(limits, forKey: .limits)
        try c.encode(memberEventsUpTo, forKey: .memberEventsUpTo)
        try c.encode(catchUp, forKey: .catchUp)
        try c.encode(recording, forKey: .recording)
        try c.encodeIfPresent(cluster, forKey: .cluster)
        try c.encode(calls, forKey: .calls)
    }

    /// Checks ranges; the message names the offending setting.
    public func validate() throws(ConfigurationError) {
        for (name, port) in [
            ("controlPort", controlPort), ("mediaPort", mediaPort), ("adminPort", adminPort), ("webPort", webPort),
        ] {
            guard (0...65535).contains(port) else { throw .invalid("\(name) must be 0...65535, got \(port)") }
        }
        guard (tlsCertificate == nil) == (tlsKey == nil) else {
            throw .invalid(
                "tlsCertificate and tlsKey go together: give both, or neither for the self-signed certificate")
        }
        guard heartbeatInterval >= .milliseconds(10) else { throw .invalid("heartbeatIntervalMs must be at least 10") }
        guard heartbeatMissLimit >= 1 else { throw .invalid("heartbeatMissLimit must be at least 1") }
        guard mediaSilenceTimeout >= .seconds(1) else { throw .invalid("mediaSilenceTimeoutMs must be at least 1000") }
        guard maxConnections >= 1 else { throw .invalid("maxConnections must be at least 1") }
        guard webMaxConnections >= 1 else { throw .invalid("webMaxConnections must be at least 1") }
        guard memberEventsUpTo >= 0 else {
            throw .invalid("memberEventsUpTo must be at least 0, got \(memberEventsUpTo)")
        }
        do {
            try apns?.validate()
        } catch {
            throw .invalid(error.description)
        }
        try cluster?.validate()
    }

    /// Decodes a config file's JSON, refusing a key that is not a setting (naming its path and the nearest known
    /// key): a misspelt key would otherwise be ignored without a word. Ranges are ``validate()``'s.
    static func decode(_ data: Data) throws -> ServerConfiguration {
        let config = try JSONDecoder().decode(ServerConfiguration.self, from: data)
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
        let unknown = ConfigurationKeys.known.unknownKeys(in: object)
        guard unknown.isEmpty else {
            throw ConfigurationError.invalid(unknown.map(\.description).joined(separator: "; "))
        }
        return config
    }

    /// Reads a JSON config file; errors say which file and what is wrong in it.
    public static func load(from path: String) throws(ConfigurationError) -> ServerConfiguration {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw .invalid("cannot read config file \(path): \(error.localizedDescription)")
        }
        do {
            let config = try decode(data)
            try config.validate()
            return config
        } catch let error as ConfigurationError {
            throw .invalid("\(path): \(error)")
        } catch let error as DecodingError {
            throw .invalid("\(path): \(ConfigurationError.describe(error))")
        } catch {
            throw .invalid("\(path): \(error)")
        }
    }
}

/// A configuration that cannot be used, with a message for the operator.
public enum ConfigurationError: Error, CustomStringConvertible, Equatable {
    case invalid(String)
    public var description: String {
        switch self {
        case .invalid(let message): message
        }
    }

    static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            context.codingPath.map(\.stringValue).joined(separator: ".")
        }
        switch error {
        case .typeMismatch(let type, let context): return "'\(path(context))' should be \(type)"
        case .valueNotFound(let type, let context): return "'\(path(context))' is null, expected \(type)"
        case .keyNotFound(let key, _): return "missing '\(key.stringValue)'"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "not valid JSON" : "'\(path(context))': \(context.debugDescription)"
        @unknown default: return "\(error)"
        }
    }
}
