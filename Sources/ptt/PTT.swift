import ArgumentParser
import Foundation
import PTTKit
import PTTProtocol

/// `ptt`: a Push-To-Talk client for people and scripts.
@main
struct PTT: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ptt",
        abstract: "Push-To-Talk client: join channels, watch events, take the floor.",
        subcommands: [
            Monitor.self, Talk.self, Listen.self, SDP.self, Floor.self, EmergencyCommand.self, CallUser.self,
            Answer.self, LeaveCommand.self, Encode.self,
        ])
}

/// Who to connect to and as whom.
struct ConnectionOptions: ParsableArguments {
    @Option(help: "Server HOST:PORT (default $PTT_SERVER, else the pttd in ./.pttd, else 127.0.0.1:7700).")
    var server: String?

    @Option(help: "User name (default $PTT_USER).")
    var user: String?

    @Option(help: "User secret from `pttctl user add` (default $PTT_SECRET).")
    var secret: String?

    @Option(help: "Device id: memberships belong to a device (default: a new one each run; $PTT_DEVICE).")
    var device: String?

    @Option(help: "Connection role: app or push-provider.")
    var role: String = "app"

    @Option(
        name: .customLong("srtp-suite"),
        help: ArgumentHelp(
            "SRTP suite to ask for when joining, most preferred first; repeat for more (AES_CM_128_HMAC_SHA1_80, AEAD_AES_128_GCM; default: the server's default).",
            valueName: "suite"))
    var srtpSuites: [String] = []

    @Flag(name: .customLong("no-tls"), help: "Connect without TLS (only to a pttd started with --no-tls).")
    var noTLS = false

    @Option(
        help: "Known hosts file for certificate pinning (default $PTT_HOME/known_hosts, PTT_HOME defaults to ~/.ptt).")
    var knownHosts: String?

    @Option(help: "Seconds to wait for the server's welcome when connecting (ptt talk, listen, call, answer).")
    var connectTimeout: Double = 3

    func connect() async throws -> ControlClient {
        try await connectWithEndpoint().0
    }

    /// Connects as an app with PTTKit's client (reconnects, typed events, audio), as `ptt talk` and `ptt listen` do.
    func connectMember(jitterMs: Int? = nil) async throws -> PTTClient {
        let target = try resolve()
        var options = PTTClient.Options()
        options.clientName = "ptt"
        options.connectTimeout = .milliseconds(Int64(max(0.1, connectTimeout) * 1000))
        options.srtpSuites = srtpSuites.isEmpty ? nil : srtpSuites
        if let jitterMs { options.jitterDelay = .milliseconds(jitterMs) }
        do {
            let client = try await PTTClient.connect(
                to: target.endpoint, credentials: target.credentials,
                security: target.trust.map { .tls($0) } ?? .plaintext, options: options)
            if let knownHosts = target.trust, let fingerprint = await client.certificatePinnedNow {
                stderr(
                    "ptt: pinned the certificate of \(target.endpoint) (SHA-256 \(fingerprint)) in \(knownHosts.path)")
            }
            return client
        } catch let error as PTTClientError {
            stderr("ptt: \(error)")
            throw ExitCode(1)
        }
    }

    /// Where to connect, as whom, trusting what (nil: no TLS).
    struct Target {
        var endpoint: ServerEndpoint
        var credentials: PTTCredentials
        var role: ClientRole
        var trust: KnownHosts?
    }

    /// Reads the options and the environment.
    func resolve() throws -> Target {
        let env = ProcessInfo.processInfo.environment
        var useTLS = !noTLS
        var endpointText = server ?? env["PTT_SERVER"]
        if endpointText == nil, let data = FileManager.default.contents(atPath: "./.pttd/runtime.json"),
            let info = try? JSONDecoder().decode(RuntimeInfo.self, from: data)
        {
            endpointText = "127.0.0.1:\(info.controlPort)"
            if !info.tls { useTLS = false }
        }
        guard let endpoint = ServerEndpoint(parsing: endpointText ?? "127.0.0.1:7700") else {
            throw ValidationError("cannot read server address '\(endpointText ?? "")': use HOST:PORT")
        }
        guard let user = user ?? env["PTT_USER"] else { throw ValidationError("--user (or $PTT_USER) is required") }
        guard let secret = secret ?? env["PTT_SECRET"] else {
            throw ValidationError("--secret (or $PTT_SECRET) is required")
        }
        guard let role = ClientRole(rawValue: role) else {
            throw ValidationError("--role must be app or push-provider")
        }
        let device = device ?? env["PTT_DEVICE"] ?? "ptt-" + UUID().uuidString.prefix(8).lowercased()
        return Target(
            endpoint: endpoint, credentials: PTTCredentials(user: user, secret: secret, device: device), role: role,
            trust: useTLS ? KnownHosts(path: knownHosts ?? KnownHosts.defaultPath()) : nil)
    }

    /// Connects with the low-level control client (every frame as it comes, for `monitor` and `floor`) and also
    /// returns the endpoint used.
    func connectWithEndpoint() async throws -> (ControlClient, ServerEndpoint) {
        let target = try resolve()
        let endpoint = target.endpoint
        do {
            let client = try await ControlClient.connect(
                to: endpoint,
                hello: target.credentials.hello(role: target.role, client: "ptt"),
                security: target.trust.map { .tls($0) } ?? .plain)
            if client.pinnedCertificate, let fingerprint = client.serverFingerprint, let knownHosts = target.trust {
                stderr("ptt: pinned the certificate of \(endpoint) (SHA-256 \(fingerprint)) in \(knownHosts.path)")
            }
            return (client, endpoint)
        } catch let error as ControlClientError {
            stderr("ptt: \(error)")
            throw ExitCode(1)
        }
    }
}

func stderr(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

/// Prints a frame as one JSON line and flushes, for scripts reading the output live.
func printLine(_ message: ControlMessage) {
    guard let data = try? ControlMessageCoding.encode(message) else { return }
    FileHandle.standardOutput.write(data + Data([0x0A]))
}

/// Runs `body` until it finishes, `seconds` pass, or SIGINT/SIGTERM arrives.
func runUntilInterrupted(seconds: Double?, _ body: @escaping @Sendable () async throws -> Void) async throws {
    signal(SIGINT, SIG_IGN)
    signal(SIGTERM, SIG_IGN)
    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await body() }
        group.addTask {
            let box = SignalSources()
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    box.start { continuation.resume() }
                }
            } onCancel: {
                box.fire()
            }
            box.stop()
        }
        if let seconds {
            group.addTask { try await Task.sleep(for: .milliseconds(Int(seconds * 1000))) }
        }
        try await group.next()
        group.cancelAll()
    }
}

/// SIGINT and SIGTERM sources that call back once, for the first signal or cancellation.
final class SignalSources: @unchecked Sendable {
    // @unchecked: guarded by `lock`.
    private let lock = NSLock()
    private var sources: [DispatchSourceSignal] = []
    private var callback: (@Sendable () -> Void)?
    private var fired = false

    func start(_ callback: @escaping @Sendable () -> Void) {
        lock.lock()
        if fired {
            lock.unlock()
            return callback()
        }
        self.callback = callback
        sources = [SIGINT, SIGTERM].map { DispatchSource.makeSignalSource(signal: $0, queue: .global()) }
        for source in sources {
            source.setEventHandler { [weak self] in self?.fire() }
            source.resume()
        }
        lock.unlock()
    }

    func fire() {
        lock.lock()
        let callback = fired ? nil : self.callback
        fired = true
        self.callback = nil
        lock.unlock()
        callback?()
    }

    func stop() {
        lock.lock()
        defer { lock.unlock() }
        sources.forEach { $0.cancel() }
        sources = []
    }
}
