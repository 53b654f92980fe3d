#if os(Linux)
import Foundation
import Glibc
import PTTProtocol
import Synchronization

/// `pttd` as a child process in a temporary data directory, optionally pinned to one core with `taskset`.
final class ServerProcess: Sendable {
    let dataDirectory: String
    let process: Process
    let pid: Int32
    let runtime: RuntimeInfo
    let adminToken: String
    let logPath: String

    private let spawner: SpawnerThread
    private let stopped = Mutex<StopOutcome?>(nil)

    private init(
        dataDirectory: String, process: Process, spawner: SpawnerThread, pid: Int32, runtime: RuntimeInfo,
        adminToken: String, logPath: String
    ) {
        self.dataDirectory = dataDirectory
        self.process = process
        self.spawner = spawner
        self.pid = pid
        self.runtime = runtime
        self.adminToken = adminToken
        self.logPath = logPath
    }

    struct LaunchOptions {
        var executable: String
        var core: Int?
        var security: String
        var maxTalkTimeMs: Int
        var maxConnections: Int
        var logLevel: String
        /// Control connections over TLS: pttd makes a self-signed certificate and writes its fingerprint to
        /// runtime.json. Without it pttd runs with `--no-tls`.
        var tls = false
        /// pttd's `catchUp.mode` ("off", "woken", "late-joiners"); nil: pttd's default.
        var catchUpMode: String?
        /// pttd's `catchUp.speed`; nil: pttd's default.
        var catchUpSpeed: Double?
        /// A PostgreSQL URL: pttd runs as the cluster node `node` on it (its node links on any free port).
        var cluster: String?
        var node = "pttbench"
    }

    /// How pttd ended when `stop()` asked it to.
    struct StopOutcome: Codable, Sendable {
        /// "stopped", "killed (…)" or "had already exited (…)".
        var ending: String
        /// From SIGTERM to the process's exit (to SIGKILL's effect if it was needed); nil if it had already exited.
        var secondsAfterSIGTERM: Double?
        /// True when pttd was still running 5 s after SIGTERM and was killed.
        var killed: Bool
        /// True when the talker was still sending when SIGTERM was sent.
        var underLoad = false
        /// Packets the talker sent after the measured run and before SIGTERM.
        var packetsSentBeforeSIGTERM: Int?
    }

    /// Makes the data directory, writes config.json, starts pttd and waits (at most 30 s) for runtime.json.
    static func start(_ options: LaunchOptions) async throws -> ServerProcess {
        guard FileManager.default.isExecutableFile(atPath: options.executable) else {
            throw BenchError("no pttd at \(options.executable) (build it, or pass --pttd PATH)")
        }
        var template = Array("/tmp/pttbench.XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw BenchError("mkdtemp: \(String(cString: strerror(errno)))") }
        let directory = String(cString: made)
        var config: [String: Any] = [
            "floor": ["maxTalkTimeMs": options.maxTalkTimeMs],
            "maxConnections": options.maxConnections,
        ]
        var catchUp: [String: Any] = [:]
        if let mode = options.catchUpMode { catchUp["mode"] = mode }
        if let speed = options.catchUpSpeed { catchUp["speed"] = speed }
        if !catchUp.isEmpty { config["catchUp"] = catchUp }
        try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: directory + "/config.json"))

        let logPath = directory + "/pttd.log"
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        var arguments =
            [
                options.executable, "--data", directory, "--control-host", "127.0.0.1", "--control-port", "0",
                "--admin-port", "0", "--media-port", "0", "--no-web", "--media-security", options.security,
                "--log-level", options.logLevel,
            ] + (options.tls ? [] : ["--no-tls"])
        if let cluster = options.cluster {
            arguments += ["--cluster", cluster, "--node", options.node, "--link-port", "0"]
        }
        let process = Process()
        if let core = options.core {
            let taskset = ["/usr/bin/taskset", "/bin/taskset"].first {
                FileManager.default.isExecutableFile(atPath: $0)
            }
            guard let taskset else { throw BenchError("taskset not found (util-linux); pass --no-pin") }
            process.executableURL = URL(fileURLWithPath: taskset)
            arguments = ["-c", "\(core)"] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: arguments.removeFirst())
        }
        // If pttbench dies (a crash, SIGKILL), the kernel kills pttd too: `setpriv --pdeathsig KILL`. The death
        // signal fires when the *thread* that spawned the child ends, so the spawn happens on a thread of its
        // own that lives until pttd has been stopped.
        if let setpriv = ["/usr/bin/setpriv", "/bin/setpriv"].first(where: {
            FileManager.default.isExecutableFile(atPath: $0)
        }) {
            arguments = ["--pdeathsig", "KILL", process.executableURL!.path] + arguments
            process.executableURL = URL(fileURLWithPath: setpriv)
        }
        process.arguments = arguments
        process.standardOutput = log
        process.standardError = log
        process.standardInput = FileHandle.nullDevice
        let spawner = SpawnerThread()
        try spawner.spawn(process)
        serverPIDForSignals.store(process.processIdentifier, ordering: .relaxed)

        let runtimePath = directory + "/runtime.json"
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            if !process.isRunning {
                spawner.finish()
                throw BenchError(
                    "pttd exited with status \(process.terminationStatus) at start; its log:\n\(tail(of: logPath))")
            }
            if let data = FileManager.default.contents(atPath: runtimePath),
                let runtime = try? JSONDecoder().decode(RuntimeInfo.self, from: data),
                let token = try? String(contentsOfFile: directory + "/admin-token", encoding: .utf8)
            {
                return ServerProcess(
                    dataDirectory: directory, process: process, spawner: spawner, pid: runtime.pid, runtime: runtime,
                    adminToken: token.trimmingCharacters(in: .whitespacesAndNewlines), logPath: logPath)
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        process.terminate()
        spawner.finish()
        throw BenchError("pttd wrote no runtime.json within 30 s; its log:\n\(tail(of: logPath))")
    }

    var isRunning: Bool { process.isRunning }

    /// How `stop()` ended pttd, once it has been called.
    var stopOutcome: StopOutcome? { stopped.withLock { $0 } }

    /// SIGTERM, then SIGKILL after 5 s; times how long pttd took to exit. Later calls return the first outcome.
    func stop(underLoad: Bool = false) async -> StopOutcome {
        if let outcome = stopOutcome { return outcome }
        defer {
            serverPIDForSignals.store(0, ordering: .relaxed)
            spawner.finish()
        }
        var outcome: StopOutcome
        if !process.isRunning {
            outcome = StopOutcome(
                ending: "had already exited (status \(process.terminationStatus))", secondsAfterSIGTERM: nil,
                killed: false)
        } else {
            let start = ContinuousClock.now
            kill(process.processIdentifier, SIGTERM)
            let deadline = start + .seconds(5)
            while process.isRunning, ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(5))
            }
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                outcome = StopOutcome(
                    ending: "killed (did not stop within 5 s of SIGTERM)",
                    secondsAfterSIGTERM: PTTBench.seconds(ContinuousClock.now - start), killed: true)
            } else {
                outcome = StopOutcome(
                    ending: "stopped", secondsAfterSIGTERM: PTTBench.seconds(ContinuousClock.now - start), killed: false
                )
            }
        }
        outcome.underLoad = underLoad
        if let seconds = outcome.secondsAfterSIGTERM {
            outcome.ending +=
                String(format: " %.3f s after SIGTERM", seconds)
                + (underLoad ? " (sent while the talker was sending)" : "")
        }
        stopped.withLock { $0 = outcome }
        return outcome
    }

    func removeDataDirectory() {
        try? FileManager.default.removeItem(atPath: dataDirectory)
    }

    static func tail(of path: String, lines: Int = 30) -> String {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return "(no log)" }
        return text.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines).joined(separator: "\n")
    }
}
#endif
