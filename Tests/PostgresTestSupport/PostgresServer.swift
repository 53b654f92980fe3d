import Foundation
import Logging
import PostgresNIO
import TestSupport

/// A real PostgreSQL from Debian for tests: a new cluster made with `initdb` in a temporary directory and
/// started with `pg_ctl`, listening only on a Unix socket in that directory (no TCP port, so parallel tests never
/// collide), trust authentication for its own superuser. PostgreSQL refuses to run as root: as root the tests run
/// it as the `postgres` user the Debian package creates. ``stop()`` stops it (immediate mode) and removes it.
public final class PostgresServer: Sendable {
    /// The cluster's directory (data in `data/`, the socket in the directory itself).
    public let directory: String
    /// The programs of the newest PostgreSQL installed (`/usr/lib/postgresql/N/bin`).
    public let bin: String
    /// The port number in the socket's name (`.s.PGSQL.PORT`); nothing listens on it over TCP.
    public static let socketPort = 5432

    /// Why PostgreSQL cannot run here, or nil when it can.
    public static var unavailable: String? {
        if binaries == nil { return "PostgreSQL's programs are not installed (apt-get install postgresql)" }
        if getuid() == 0 && getpwnam("postgres") == nil { return "running as root and there is no postgres user" }
        return nil
    }

    private static var binaries: String? {
        let root = "/usr/lib/postgresql"
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return versions.compactMap(Int.init).sorted().reversed().map { "\(root)/\($0)/bin" }.first {
            FileManager.default.isExecutableFile(atPath: $0 + "/pg_ctl")
        }
    }

    /// Makes and starts a cluster; throws with PostgreSQL's own words if it does not start.
    public static func start() async throws -> PostgresServer {
        guard let bin = binaries else { throw TestFailure(unavailable ?? "no PostgreSQL") }
        let directory = TestDirectory.make()
        chmod(directory, 0o755)
        if getuid() == 0, let user = getpwnam("postgres") {
            guard chown(directory, user.pointee.pw_uid, user.pointee.pw_gid) == 0 else {
                throw TestFailure("cannot give \(directory) to the postgres user")
            }
        }
        _ = try await Subprocess.run(
            asPostgres(bin + "/initdb"),
            asPostgresArguments(bin + "/initdb")
                + ["-D", directory + "/data", "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8"],
            timeout: .seconds(60))
        // The server is this test's child (not pg_ctl's, whose background server would outlive it), logging to
        // standard error; it is ready when it says so.
        let process = try Subprocess(
            asPostgres(bin + "/postgres"),
            asPostgresArguments(bin + "/postgres") + [
                "-D", directory + "/data", "-c", "listen_addresses=", "-c", "unix_socket_directories=\(directory)",
                "-c", "port=\(socketPort)", "-c", "fsync=off", "-c", "max_connections=200",
            ])
        do {
            try await process.waitForStandardError(containing: "ready to accept connections", timeout: .seconds(30))
        } catch {
            process.signal(SIGKILL)
            throw error
        }
        return PostgresServer(directory: directory, bin: bin, process: process)
    }

    /// The program to start for `path`: itself, or `setpriv` running it as the postgres user when the tests run
    /// as root.
    private static func asPostgres(_ path: String) -> String { getuid() == 0 ? "/usr/bin/setpriv" : path }

    private static func asPostgresArguments(_ path: String) -> [String] {
        getuid() == 0 ? ["--reuid=postgres", "--regid=postgres", "--init-groups", path] : []
    }

    public let process: Subprocess

    private init(directory: String, bin: String, process: Subprocess) {
        self.directory = directory
        self.bin = bin
        self.process = process
    }

    /// The server's log (its standard error), for failure messages.
    public var log: String { process.standardError }

    /// A connection as the superuser, to `database` (postgres by default).
    public func connect(
        database: String = "postgres", logger: Logger = Logger(label: "postgres-test")
    ) async throws
        -> PostgresConnection
    {
        try await PostgresConnection.connect(
            configuration: .init(
                unixSocketPath: "\(directory)/.s.PGSQL.\(Self.socketPort)", username: "postgres", password: nil,
                database: database),
            id: Int.random(in: 1...Int.max), logger: logger)
    }

    /// Stops the server at once (SIGQUIT: immediate shutdown, as after a crash) and removes its directory.
    public func stop() async {
        process.signal(SIGQUIT)
        if (try? await process.waitForExit(timeout: .seconds(10))) == nil { process.signal(SIGKILL) }
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// Runs `body` with a started PostgreSQL, stopped afterwards whatever happens.
public func withPostgres<T>(_ body: (PostgresServer) async throws -> T) async throws -> T {
    let server = try await PostgresServer.start()
    do {
        let result = try await body(server)
        await server.stop()
        return result
    } catch {
        await server.stop()
        throw error
    }
}
