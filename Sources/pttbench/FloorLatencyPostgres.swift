#if os(Linux)
import Foundation
import Glibc
import Synchronization

/// The postmaster this run started, for the signal handler (0: none).
let postgresPIDForSignals = Atomic<Int32>(0)

/// A private PostgreSQL for `--scenario postgres-stop`: a new cluster made with `initdb` in a temporary directory,
/// listening only on a Unix socket there, trust authentication for its superuser (as Tests/PTTServerTests'
/// PostgresServer; as root it runs as the `postgres` user). `psql` reads it; `stop()` stops it and removes it.
final class FloorLatencyPostgres: Sendable {
    let directory: String
    let process: Process
    /// pttd's `--cluster` URL: the superuser, database postgres, over the socket.
    var url: String { "postgres://postgres@/postgres?host=\(directory)" }

    private init(directory: String, process: Process) {
        self.directory = directory
        self.process = process
    }

    /// The newest installed PostgreSQL's programs.
    static var binaries: String? {
        let root = "/usr/lib/postgresql"
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return versions.compactMap(Int.init).sorted().reversed().map { "\(root)/\($0)/bin" }.first {
            FileManager.default.isExecutableFile(atPath: $0 + "/pg_ctl")
        }
    }

    static func start() async throws -> FloorLatencyPostgres {
        guard let bin = binaries else { throw BenchError("PostgreSQL is not installed (apt-get install postgresql)") }
        var template = Array("/tmp/pttbench-pg.XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw BenchError("mkdtemp: \(String(cString: strerror(errno)))") }
        let directory = String(cString: made)
        chmod(directory, 0o755)
        if getuid() == 0 {
            guard let user = getpwnam("postgres"), chown(directory, user.pointee.pw_uid, user.pointee.pw_gid) == 0
            else { throw BenchError("running as root, and cannot give \(directory) to a postgres user") }
        }
        let initdb = try launch(
            bin + "/initdb",
            ["-D", directory + "/data", "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8"],
            log: directory + "/initdb.log")
        guard try await exited(initdb, within: .seconds(60)) == 0 else {
            throw BenchError("initdb failed: \(ServerProcess.tail(of: directory + "/initdb.log"))")
        }
        let log = directory + "/postgres.log"
        let process = try launch(
            bin + "/postgres",
            [
                "-D", directory + "/data", "-c", "listen_addresses=", "-c", "unix_socket_directories=\(directory)",
                "-c", "port=5432", "-c", "max_connections=50",
            ], log: log)
        postgresPIDForSignals.store(process.processIdentifier, ordering: .relaxed)
        let server = FloorLatencyPostgres(directory: directory, process: process)
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            if ServerProcess.tail(of: log).contains("ready to accept connections") { return server }
            guard process.isRunning else { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        await server.stop()
        throw BenchError("PostgreSQL did not start: \(ServerProcess.tail(of: log))")
    }

    /// Runs `query` with psql (unaligned, tuples only) and returns its rows, each split at `|`.
    func query(_ query: String) async throws -> [[String]] {
        let out = directory + "/psql.out"
        let psql = try Self.launch(
            "/usr/bin/psql",
            ["-X", "-q", "-A", "-t", "-h", directory, "-U", "postgres", "-d", "postgres", "-c", query], log: out,
            asPostgres: false)
        guard try await Self.exited(psql, within: .seconds(20)) == 0 else {
            throw BenchError("psql failed: \(ServerProcess.tail(of: out))")
        }
        let text = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map {
            $0.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
        }
    }

    /// Stops the server at once (SIGQUIT, SIGKILL after 10 s) and removes its directory.
    func stop() async {
        if process.isRunning {
            kill(process.processIdentifier, SIGQUIT)
            if (try? await Self.exited(process, within: .seconds(10))) == nil {
                kill(process.processIdentifier, SIGKILL)
            }
        }
        postgresPIDForSignals.store(0, ordering: .relaxed)
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Starts `path` (as the postgres user when this runs as root and `asPostgres`), its output to `log`.
    private static func launch(
        _ path: String, _ arguments: [String], log: String, asPostgres: Bool = true
    ) throws
        -> Process
    {
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        let process = Process()
        if asPostgres && getuid() == 0 {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments = ["--reuid=postgres", "--regid=postgres", "--init-groups", path] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: path)
            process.arguments = arguments
        }
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try runWithDefaultSignalMask(process)
        return process
    }

    /// The exit status of `process`, or nil when it is still running after `timeout` (then it is killed).
    private static func exited(_ process: Process, within timeout: Duration) async throws -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            guard ContinuousClock.now < deadline else {
                kill(process.processIdentifier, SIGKILL)
                return nil
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        return process.terminationStatus
    }
}
#endif
