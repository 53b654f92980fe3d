import Foundation
import NIOCore
import NIOPosix
import PTTAdmin
import PTTKit
import PTTProtocol
import ServerTestSupport
import TestSupport
import Testing

extension Stress {
    /// `pttd` in its own process, measured as an operator would (its RSS): connection churn and clients that
    /// stop reading do not grow it without bound.
    @Suite("pttd memory under churn and slow readers", .serialized)
    struct DaemonMemoryTests {
        static let megabyte = 1 << 20

        static func startDaemon(_ config: String) async throws -> (Subprocess, RuntimeInfo, AdminClient, String) {
            let data = TestServer.temporaryDirectory()
            let file = data + "/test-config.json"
            try Data(config.utf8).write(to: URL(fileURLWithPath: file))
            let (daemon, info) = try await Subprocess.startDaemon(
                data: data, arguments: ["--no-tls", "--config", file, "--log-level", "warning"])
            return (daemon, info, try AdminClient.fromDataDirectory(data), data)
        }

        static func rss(_ daemon: Subprocess) throws -> Int { try require_(daemon.residentBytes, "pttd's RSS") }

        @Test("20,000 connect-and-close cycles grow pttd by less than 24 MB")
        func churn() async throws {
            let (daemon, info, admin, _) = try await Self.startDaemon("{}")
            defer { daemon.signal(SIGKILL) }
            let endpoint = ServerEndpoint(host: "127.0.0.1", port: info.controlPort)
            try await Self.connectAndClose(endpoint, count: 2000)  // warm-up: pools and caches reach their size
            let before = try Self.rss(daemon)
            try await Self.connectAndClose(endpoint, count: 20_000)
            // A closed connection's session leaves the plane's table once its close reaches the plane's loop, a
            // moment after the connection count drops: both must reach 0 (a session kept would hold it above).
            try await eventually("every connection to close and its session to leave memory") {
                let metrics = try await admin.getText("/metrics")
                return metric(metrics, "ptt_control_connections") == 0
                    && metric(metrics, "ptt_control_sessions_in_memory") == 0
            }
            let after = try Self.rss(daemon)
            print("pttd RSS over 20,000 connect-and-close cycles: \(before / 1024) KiB -> \(after / 1024) KiB")
            #expect(
                after - before < 24 * Self.megabyte,
                "RSS went from \(before / Self.megabyte) MB to \(after / Self.megabyte) MB")
        }

        @Test("ten members that stop reading while the floor is flooded grow pttd by less than 64 MB, and are cut off")
        func slowReaders() async throws {
            let (daemon, info, admin, _) = try await Self.startDaemon(#"{"heartbeatIntervalMs": 60000}"#)
            defer { daemon.signal(SIGKILL) }
            let endpoint = ServerEndpoint(host: "127.0.0.1", port: info.controlPort)
            let added: AddUserResponse = try await admin.post(
                "/api/users", body: AddUserRequest(name: "alice", priority: 0, receiveOnly: false))
            let hello = { (device: String) in
                ControlMessage.hello(Hello(user: "alice", secret: added.secret, device: device))
            }
            var sleepers: [SilentConnection] = []
            for index in 0..<10 {
                let sleeper = try await SilentConnection.connect(to: endpoint)
                try await sleeper.write([hello("sleeper-\(index)"), .join(Join(id: 1, channel: "deck"))])
                sleepers.append(sleeper)
            }
            let talker = try await DiscardingConnection.connect(to: endpoint)
            try await talker.write([hello("talker"), .join(Join(id: 1, channel: "deck"))])
            try await eventually("eleven members") {
                let detail: ChannelDetail? = try? await admin.get("/api/channels/deck")
                return detail?.members.count == 11
            }
            let before = try Self.rss(daemon)
            var peak = before
            let batch: [ControlMessage] = (0..<50).flatMap { index in
                [
                    ControlMessage.floorRequest(FloorCommand(id: 2 * index, channel: "deck")),
                    .floorRelease(FloorCommand(id: 2 * index + 1, channel: "deck")),
                ]
            }
            let slowReaders = #"ptt_control_connections_closed_total{reason="slow-reader"}"#
            let deadline = ContinuousClock.now + .seconds(60)
            var rounds = 0
            while rounds < 4000, ContinuousClock.now < deadline {
                if rounds % 20 == 0, (metric(try await admin.getText("/metrics"), slowReaders) ?? 0) >= 10 { break }
                try await talker.write(batch)
                rounds += 1
                if rounds % 20 == 0 { peak = max(peak, try Self.rss(daemon)) }
            }
            print(
                "pttd RSS with 10 slow readers: \(before / 1024) KiB -> peak \(peak / 1024) KiB after \(rounds) rounds of 50 floor cycles"
            )
            #expect(
                metric(try await admin.getText("/metrics"), slowReaders) == 10,
                "after \(rounds) rounds of 50 floor cycles")
            #expect(
                peak - before < 64 * Self.megabyte,
                "RSS went from \(before / Self.megabyte) MB to a peak of \(peak / Self.megabyte) MB")
            for sleeper in sleepers { await sleeper.close() }
            await talker.close()
        }

        /// Opens and closes `count` plain TCP connections, 32 at a time.
        static func connectAndClose(_ endpoint: ServerEndpoint, count: Int) async throws {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for lane in 0..<32 {
                    group.addTask {
                        for _ in stride(from: lane, to: count, by: 32) {
                            // Each lane connects from its own loopback address: the TIME_WAIT entries closed
                            // connections leave are spread over many address pairs, so local ports do not run out.
                            let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                                .bind(to: try SocketAddress(ipAddress: "127.0.1.\(lane + 1)", port: 0))
                                .connect(host: endpoint.host, port: endpoint.port).get()
                            try? await channel.close()
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
    }
}
