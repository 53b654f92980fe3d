#if os(Linux)
import ArgumentParser
import Foundation
import NIOCore
import PTTAdmin
import PTTKit
import PTTProtocol

/// Options the PTTKit benchmarks (`kit-wake`, `kit-push-memory`) share: which pttd, where it runs, TLS or not.
struct KitServerOptions: ParsableArguments {
    @OptionGroup var placement: PlacementOptions

    @Flag(name: .long, help: "Start pttd with --no-tls and connect in clear text (a comparison row).")
    var noTLS = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "pttd's media protection: srtp (pttd's default) or none.",
            discussion: """
                A woken app's attach refreshes its membership with a join, so it sends under new SRTP keys (before \
                that fix it reused the previous launch's key, and the relay dropped its keep-alives as replays).
                """))
    var mediaSecurity = "srtp"

    @Option(name: .long, help: "pttd's log level.")
    var serverLogLevel = "warning"

    @Flag(name: .long, help: "Keep pttd's data directory (its log) after the run.")
    var keep = false

    func validate() throws {
        guard ["srtp", "none"].contains(mediaSecurity) else {
            throw ValidationError("--media-security must be srtp or none")
        }
    }
}

/// A pttd child process for the PTTKit benchmarks: started with TLS (a self-signed certificate) unless `--no-tls`,
/// loopback only, ports read back from runtime.json, with settings ServerProcess has no option for applied by
/// rewriting DATA/config.json and reloading (`POST /api/reload`) before any client connects. Users and channels are
/// made through the admin API; clients trust the certificate through a known-hosts file in a temporary directory
/// (pinned by the first connection, as a phone pins it once).
struct KitBenchServer {
    let process: ServerProcess
    let admin: AdminClient
    let endpoint: ServerEndpoint
    let tls: Bool
    /// The known-hosts file the clients pin the certificate in (in the data directory).
    let knownHosts: String

    /// How the kit's clients connect.
    var security: PTTClient.Security { tls ? .tls(KnownHosts(path: knownHosts)) : .plaintext }
    /// The same for a low-level ``ControlClient``.
    var controlSecurity: ControlSecurity { tls ? .tls(KnownHosts(path: knownHosts)) : .plain }

    /// Starts pttd and applies `settings` (config.json keys, such as `heartbeatIntervalMs`) by a reload; throws
    /// unless the reload reports each of them applied.
    static func start(_ options: KitServerOptions, settings: [String: Int]) async throws -> KitBenchServer {
        let process = try await ServerProcess.start(
            .init(
                executable: options.placement.executable, core: options.placement.pinnedServerCPU,
                security: options.mediaSecurity,
                maxTalkTimeMs: 600_000, maxConnections: 1_000, logLevel: options.serverLogLevel, tls: !options.noTLS))
        let admin = AdminClient(baseURL: process.runtime.adminURL, token: process.adminToken, timeout: .seconds(30))
        let server = KitBenchServer(
            process: process, admin: admin,
            endpoint: ServerEndpoint(host: "127.0.0.1", port: process.runtime.controlPort), tls: !options.noTLS,
            knownHosts: process.dataDirectory + "/client/known_hosts")
        do {
            try await server.apply(settings)
        } catch {
            await server.stop(keep: true)
            throw error
        }
        return server
    }

    /// A whole benchmark: pins this process, starts pttd with `settings`, prints what `measure` returns and stops
    /// pttd (keeping its data directory after a failure or with `--keep`).
    static func run(
        _ options: KitServerOptions, settings: [String: Int], _ measure: (KitBenchServer) async throws -> String
    ) async throws {
        installSignalHandlers()
        if let cpu = options.placement.pinnedBenchCPU, !LinuxSys.pinProcess(toCPU: cpu) {
            throw ValidationError("cannot pin pttbench to CPU \(cpu) (see nproc; or --no-pin)")
        }
        let pttd = try await start(options, settings: settings)
        let outcome: Result<String, Error>
        do {
            outcome = .success(try await measure(pttd))
        } catch {
            outcome = .failure(error)
        }
        let failed = (try? outcome.get()) == nil
        let log = ServerProcess.tail(of: pttd.process.logPath)
        let ending = await pttd.stop(keep: options.keep || failed)
        switch outcome {
        case .success(let text): print(text + "\npttd: \(ending)")
        case .failure(let error):
            FileHandle.standardError.write(Data("pttbench: \(error)\npttd: \(ending); log:\n\(log)\n".utf8))
            throw ExitCode(1)
        }
    }

    /// Merges `settings` into DATA/config.json and reloads.
    private func apply(_ settings: [String: Int]) async throws {
        guard !settings.isEmpty else { return }
        let path = process.dataDirectory + "/config.json"
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        var config = (try JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
        for (key, value) in settings { config[key] = value }
        try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: path))
        let report: ReloadReport = try await admin.post("/api/reload", body: AdminClient.Empty())
        let missing = settings.keys.filter { key in !report.applied.contains { $0.hasPrefix(key) } }
        guard missing.isEmpty else {
            throw BenchError("pttd's reload did not apply \(missing.sorted()) (applied: \(report.applied))")
        }
    }

    /// Makes a user and returns its secret.
    func addUser(_ name: String) async throws -> String {
        let user: AddUserResponse = try await admin.post("/api/users", body: AddUserRequest(name: name))
        return user.secret
    }

    /// Makes a channel.
    func addChannel(_ name: String) async throws {
        let _: ChannelSummary = try await admin.post("/api/channels", body: CreateChannelRequest(name: name))
    }

    /// One member of `channel` as the admin API shows it.
    func member(_ user: String, of channel: String) async throws -> MemberStatus? {
        let detail: ChannelDetail = try await admin.get("/api/channels/\(channel)")
        return detail.members.first { $0.user == user }
    }

    /// Polls the admin API (every 20 ms) until `condition` holds for `user` in `channel`; throws after `timeout`.
    func waitFor(
        _ what: String, user: String, in channel: String, timeout: Duration = .seconds(10),
        _ condition: (MemberStatus) -> Bool
    ) async throws {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let member = try await member(user, of: channel), condition(member) { return }
            guard ContinuousClock.now < deadline else { throw BenchError("\(what): not within \(timeout)") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Stops pttd (SIGTERM) and removes its data directory unless `keep`; returns how it ended.
    @discardableResult
    func stop(keep: Bool) async -> String {
        let ending = await process.stop().ending
        if keep {
            FileHandle.standardError.write(Data("pttbench: pttd's data kept in \(process.dataDirectory)\n".utf8))
        } else {
            process.removeDataDirectory()
        }
        return ending
    }

    /// What `body` returns, or nil after `timeout` (the body is cancelled).
    static func within<T: Sendable>(
        _ timeout: Duration, _ body: @escaping @Sendable () async throws -> T?
    ) async throws -> T? {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    /// Monotonic nanoseconds, the clock the kit stamps packet arrivals with.
    static func now() -> UInt64 { NIODeadline.now().uptimeNanoseconds }
}
#endif
