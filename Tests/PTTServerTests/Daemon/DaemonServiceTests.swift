import Foundation
import Logging
import NIOPosix
import PTTAdmin
import PTTKit
import PTTProtocol
import ServerTestSupport
import ServiceLifecycle
import TestSupport
import Testing

@testable import PTTServer

/// `PTTDaemon` as `pttd` runs it: a `Service` in a `ServiceGroup`, its listeners services of their own, stopped by
/// a graceful shutdown.
@Suite struct DaemonServiceTests {
    static func daemon() -> (PTTDaemon, Logger) {
        let configuration = TestServer.loopbackConfiguration()
        var logger = Logger(label: "pttd-service-test")
        logger.logLevel = .critical
        let daemon = PTTDaemon(
            configuration: configuration, dataDirectory: DataDirectory(path: TestServer.temporaryDirectory()),
            logger: logger, group: MultiThreadedEventLoopGroup.singleton)
        return (daemon, logger)
    }

    @Test func aGracefulShutdownClosesTheListenersAndTellsConnectedClients() async throws {
        let (daemon, logger) = Self.daemon()
        let group = ServiceGroup(configuration: .init(services: [.init(service: daemon)], logger: logger))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            // The daemon starts on the test process's cooperative pool (two threads here), where the main pass starts
            // its 1,000 tests at once: in its first 20 s even a test that takes a millisecond alone reports 20 s,
            // queued behind the others, and so does this start (seen in fresh clones: 822 tests "took" 20-21 s, and
            // this wait, 20 s, ran out). The wait only bounds a daemon that never listens; the shutdown is the test.
            try await eventually("the daemon to listen", timeout: .seconds(120).scaled) { daemon.runtimeInfo != nil }
            let info = try #require(daemon.runtimeInfo)
            let admin = AdminClient(baseURL: info.adminURL, token: try #require(daemon.adminToken))
            let user: AddUserResponse = try await admin.post("/api/users", body: AddUserRequest(name: "ana"))
            let endpoint = ServerEndpoint(host: "127.0.0.1", port: info.controlPort)
            let client = try await ControlClient.connect(
                to: endpoint,
                hello: Hello(user: "ana", secret: user.secret, device: "phone", role: .app, client: "tests"),
                security: .plain, acknowledgeHeartbeats: true, timeout: TestTimeouts.eventWait)
            let peer = Peer(client: client)

            await group.triggerGracefulShutdown()
            let closing = try await peer.next("error")
            if case .error(let frame) = closing {
                #expect(frame.code == .shuttingDown)
            } else {
                Issue.record("expected an error frame, got \(closing.type)")
            }
            try await peer.waitClosed()
            // The group ends by itself once the daemon has stopped.
            try await tasks.next()
            await #expect(throws: (any Error).self) {
                _ = try await ControlClient.connect(
                    to: endpoint,
                    hello: Hello(user: "ana", secret: user.secret, device: "phone", role: .app, client: "tests"),
                    security: .plain, acknowledgeHeartbeats: true, timeout: .seconds(2))
            }
        }
    }

    static func startRefused(_ daemon: PTTDaemon) async -> Bool {
        do {
            try await daemon.start()
            return false
        } catch {
            return error is PTTDaemon.DaemonError
        }
    }

    @Test func aDaemonStartsOnce() async throws {
        let (daemon, _) = Self.daemon()
        try await daemon.start()
        #expect(await Self.startRefused(daemon), "a running daemon started again")
        try await daemon.shutdown()
        #expect(await Self.startRefused(daemon), "a stopped daemon started again")
    }
}
