import Foundation
import Logging
import NIOCore
import NIOPosix
import PTTAdmin
import PTTCore
import PTTKit
import PTTProtocol
import PTTServer
import TestSupport

/// A real server on loopback with ephemeral ports and a temporary data directory.
public final class TestServer: Sendable {
    public let server: PTTDaemon
    public let data: DataDirectory
    public let endpoint: ServerEndpoint
    public let admin: AdminClient
    public let tls: Bool

    public static func temporaryDirectory() -> String { TestDirectory.make() }

    /// Every listener on 127.0.0.1 with port 0 (the system picks; read them back from `runtimeInfo`), TLS off.
    public static func loopbackConfiguration() -> ServerConfiguration {
        var configuration = ServerConfiguration()
        configuration.controlHost = "127.0.0.1"
        configuration.controlPort = 0
        configuration.adminPort = 0
        configuration.webHost = "127.0.0.1"
        configuration.webPort = 0
        configuration.mediaPort = 0
        configuration.tls = false
        return configuration
    }

    /// Starts a server; the caller must await ``stop()``. Tests use ``withTestServer(data:wallClock:configure:_:)``,
    /// which does.
    ///
    /// With a `source`, the server starts with what it reads (then `configure`), and can reload.
    public static func start(
        data: String? = nil, wallClock: any WallClock = SystemWallClock(), source: ConfigurationSource? = nil,
        logLevels: LogLevelControl? = nil, _ configure: (inout ServerConfiguration) -> Void = { _ in }
    ) async throws -> TestServer {
        var configuration = loopbackConfiguration()
        if let source { configuration = try source.read() }
        // Under a sanitizer the server runs several times slower: T1 and the hello timeout stretch as the tests'
        // waits do (a test that sets its own scales it itself; the 10 s hello timeout once closed a test's silent
        // connections before it had opened the last of them). A server with a source runs what its file says,
        // unchanged: a reload compares the file with what runs, and would see a scaled value as a setting the file
        // changed.
        if source == nil {
            configuration.floor.endOfMediaTimeout = configuration.floor.endOfMediaTimeout * TestTimeouts.scale
            configuration.limits.helloTimeout = configuration.limits.helloTimeout * TestTimeouts.scale
        }
        configure(&configuration)
        var logger = Logger(label: "pttd-test")
        logger.logLevel =
            ProcessInfo.processInfo.environment["PTT_TEST_LOG"].flatMap(Logger.Level.init(rawValue:)) ?? .critical
        let directory = DataDirectory(path: data ?? temporaryDirectory())
        let server = PTTDaemon(
            configuration: configuration, dataDirectory: directory, logger: logger, wallClock: wallClock,
            group: MultiThreadedEventLoopGroup.singleton, source: source, logLevels: logLevels)
        try await server.start()
        let info = try require_(server.runtimeInfo)
        return TestServer(
            server: server, data: directory, endpoint: ServerEndpoint(host: "127.0.0.1", port: info.controlPort),
            admin: AdminClient(baseURL: info.adminURL, token: try require_(server.adminToken)), tls: configuration.tls)
    }

    private init(server: PTTDaemon, data: DataDirectory, endpoint: ServerEndpoint, admin: AdminClient, tls: Bool) {
        self.server = server
        self.data = data
        self.endpoint = endpoint
        self.admin = admin
        self.tls = tls
    }

    public func stop() async {
        try? await server.shutdown()
    }

    /// Adds a user through the admin API and returns its secret.
    @discardableResult
    public func addUser(
        _ name: String, priority: Int = 0, receiveOnly: Bool = false, rights: [UserRight]? = nil
    ) async throws -> String {
        let response: AddUserResponse = try await admin.post(
            "/api/users", body: AddUserRequest(name: name, priority: priority, receiveOnly: receiveOnly, rights: rights)
        )
        return response.secret
    }

    /// Connects as `user` (whose secret must be known) and records its messages.
    public func connect(
        _ user: String, secret: String, device: String? = nil, role: ClientRole = .app,
        acknowledgeHeartbeats: Bool = true, knownHosts: KnownHosts? = nil
    ) async throws -> Peer {
        let client = try await ControlClient.connect(
            to: endpoint,
            hello: Hello(user: user, secret: secret, device: device ?? "\(user)-device", role: role, client: "tests"),
            security: tls ? .tls(knownHosts ?? KnownHosts(path: Self.temporaryDirectory() + "/known_hosts")) : .plain,
            acknowledgeHeartbeats: acknowledgeHeartbeats, timeout: .seconds(10).scaled)
        return Peer(client: client)
    }
}

/// Starts a server (as ``TestServer/start(data:wallClock:_:)``), runs `body` with it and returns what `body`
/// returns. The server's shutdown is awaited whether `body` returns or throws, so a test never leaves a
/// server (its ports, threads and data directory) running into the tests after it.
///
///     try await withTestServer(configure: { $0.tls = true }) { server in
///         let alice = try await server.connect("alice", secret: try await server.addUser("alice"))
///         ...
///     }
@discardableResult
public func withTestServer<T>(
    data: String? = nil, wallClock: any WallClock = SystemWallClock(), source: ConfigurationSource? = nil,
    logLevels: LogLevelControl? = nil, configure: (inout ServerConfiguration) -> Void = { _ in },
    _ body: (TestServer) async throws -> T
) async throws -> T {
    let server = try await TestServer.start(
        data: data, wallClock: wallClock, source: source, logLevels: logLevels, configure)
    let result: T
    do {
        result = try await body(server)
    } catch {
        await server.stop()
        throw error
    }
    await server.stop()
    return result
}
