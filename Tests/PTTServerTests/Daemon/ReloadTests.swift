import Foundation
import Logging
import PTTAdmin
import PTTCore
import PTTKit
import PTTProtocol
import ServerTestSupport
import TestSupport
import Testing

@testable import PTTServer

@Suite("Reloading the configuration while pttd serves")
struct ReloadTests {
    /// A config file for a test server on loopback, with `settings` over the test's base.
    final class ConfigFile: Sendable {
        let path = TestServer.temporaryDirectory() + "/config.json"
        var source: ConfigurationSource { .file(path) }

        init(_ settings: [String: Any] = [:]) throws { try write(settings) }

        func write(_ settings: [String: Any]) throws {
            var all: [String: Any] = [
                "controlHost": "127.0.0.1", "controlPort": 0, "adminPort": 0, "webHost": "127.0.0.1", "webPort": 0,
                "mediaPort": 0, "tls": false,
            ]
            all.merge(settings) { $1 }
            try JSONSerialization.data(withJSONObject: all, options: [.sortedKeys]).write(
                to: URL(fileURLWithPath: path))
        }

        func writeText(_ text: String) throws { try Data(text.utf8).write(to: URL(fileURLWithPath: path)) }
    }

    @Test("a reload during a talk burst applies the new settings and the burst goes on, every packet relayed")
    func reloadDuringABurst() async throws {
        // End of media (T1) is 60 s before and after: the checks between alice's last packet and her release once
        // took over 5 s in a sanitized run, and T1 revoked her first floor (end-of-media), which the test then took
        // for the second floor's revocation.
        let before: [String: Any] = [
            "floor": ["maxTalkTimeMs": 30_000, "endOfMediaTimeoutMs": 60_000], "heartbeatIntervalMs": 10_000,
        ]
        let file = try ConfigFile(before)
        let levels = LogLevelControl(.info)
        try await withTestServer(source: file.source, logLevels: levels) { server in
            let members = try await RelayTests.crew(server, ["alice", "bob"])
            let (alice, bob) = (members[0], members[1])
            #expect(try await alice.peer.request(.floorRequest(FloorCommand(channel: "deck"))).type == "floor-granted")
            try await bob.peer.barrier()

            let packets = try tonePackets(120)
            async let heard = collect(bob.media, count: packets.count)
            var timestamp = UInt32.random(in: 0...UInt32.max)
            var report: ReloadReport?
            for (index, packet) in packets.enumerated() {
                try alice.media.send(opus: packet, timestamp: timestamp, marker: index == 0)
                timestamp &+= 960
                if index == 40 {
                    // Mid-burst: shorter talk time, another heartbeat, a log level, catch-up off, and a port.
                    try file.write([
                        "floor": ["maxTalkTimeMs": 1_500, "endOfMediaTimeoutMs": 60_000], "heartbeatIntervalMs": 7_000,
                        "logLevel": "debug", "catchUp": ["mode": "off"], "controlPort": 1,
                    ])
                    report = try await server.admin.post("/api/reload", body: AdminClient.Empty())
                }
                try await Task.sleep(for: .milliseconds(20))
            }
            let received = await heard
            #expect(received.map(\.payload) == packets, "bob got \(received.count) of \(packets.count) packets")
            let report_ = try require_(report)
            #expect(
                report_.applied == [
                    "catchUp.mode", "floor.maxTalkTimeMs", "heartbeatIntervalMs", "logLevel",
                ])
            #expect(report_.needsRestart == ["controlPort"])
            #expect(!report_.certificateChanged && report_.certificate == nil)
            // Nothing was cut: alice still holds the floor she had, and both sessions answer.
            #expect(!(await alice.peer.pending()).contains { $0.type == "floor-revoked" })
            try await alice.peer.barrier()
            try await bob.peer.barrier()
            #expect(levels.current == .debug)
            #expect(server.server.configuration.controlPort == 0, "a port needs a restart: the running one stays")
            #expect(server.server.configuration.floor.maxTalkTime == .milliseconds(1_500))

            // The floor she holds keeps its timers; the next grant gets the new talk time.
            _ = try await alice.peer.request(.floorRelease(FloorCommand(channel: "deck")))
            let started = ContinuousClock.now
            #expect(try await alice.peer.request(.floorRequest(FloorCommand(channel: "deck"))).type == "floor-granted")
            let revoked = try await alice.peer.next("floor-revoked", timeout: .seconds(10).scaled)
            guard case .floorRevoked(let revoke) = revoked else { throw TestFailure("expected floor-revoked") }
            #expect(revoke.cause == .talkTimeExceeded)
            #expect(ContinuousClock.now - started < .seconds(5).scaled)
            // A session opened now is told the new heartbeat interval.
            let carol = try await server.connect("carol", secret: try await server.addUser("carol"))
            #expect(carol.welcome.heartbeatIntervalMs == 7_000)
            #expect(alice.peer.welcome.heartbeatIntervalMs == 10_000)
            await carol.close()

            // A reload with nothing new applies nothing, and still says what waits for a restart.
            let again: ReloadReport = try await server.admin.post("/api/reload", body: AdminClient.Empty())
            #expect(again.applied.isEmpty && again.needsRestart == ["controlPort"])
            let metrics = try await server.admin.getText("/metrics")
            #expect(metricValue(metrics, #"ptt_config_reloads_total{outcome="applied"}"#) == 2)
        }
    }

    @Test(
        "a bad config file is refused whole, naming the setting, and the running configuration stays",
        arguments: [
            (#"{"floor": {"maxTalkTimeMs": 0}, "logLevel": "debug"}"#, "maxTalkTimeMs"),
            (#"{"heartbeatIntervalMs": 5}"#, "heartbeatIntervalMs"),
            (#"{"logLevel": "loud"}"#, "logLevel"),
            (#"{"floor": {"maxTalkTimeMs": "long"}}"#, "floor.maxTalkTimeMs"),
            (#"{"tlsCertificate": "/nonexistent.pem"}"#, "tlsKey"),
            (#"{"floor": {"maxTalkTimeMs": 1000"#, "not valid JSON"),
            (
                #"{"floor": {"maxTalkTimeMS": 1000}, "logLevel": "debug"}"#,
                "unknown key 'floor.maxTalkTimeMS' (did you mean floor.maxTalkTimeMs?)"
            ),
        ])
    func badConfigRefused(text: String, named: String) async throws {
        let file = try ConfigFile(["floor": ["maxTalkTimeMs": 20_000]])
        let levels = LogLevelControl(.info)
        try await withTestServer(source: file.source, logLevels: levels) { server in
            try file.writeText(text)
            do {
                let _: ReloadReport = try await server.admin.post("/api/reload", body: AdminClient.Empty())
                Issue.record("the reload of \(text) was accepted")
            } catch let error as AdminError {
                #expect(error.code == .invalidConfiguration)
                #expect(error.message.contains(named), "\(error.message)")
                #expect(error.message.contains(file.path), "\(error.message)")
                #expect(error.message.contains("the running configuration stays"))
            }
            #expect(server.server.configuration.floor.maxTalkTime == .seconds(20))
            #expect(levels.current == .info)
            let metrics = try await server.admin.getText("/metrics")
            #expect(metricValue(metrics, #"ptt_config_reloads_total{outcome="refused"}"#) == 1)
            #expect(metricValue(metrics, #"ptt_config_reloads_total{outcome="applied"}"#) == 0)
        }
    }

    @Test("a server started without a configuration source says it cannot reload")
    func noSource() async throws {
        try await withTestServer { server in
            do {
                let _: ReloadReport = try await server.admin.post("/api/reload", body: AdminClient.Empty())
                Issue.record("reloaded without a source")
            } catch let error as AdminError {
                #expect(error.message.contains("without a configuration file"))
            }
        }
    }

    @Test("every setting only a restart applies is kept from the running configuration, and reported")
    func restartSettings() throws {
        let running = ServerConfiguration()
        var wanted = running
        wanted.controlHost = "10.0.0.1"
        wanted.controlPort = 1
        wanted.mediaPort = 2
        wanted.adminHost = "10.0.0.2"
        wanted.adminPort = 3
        wanted.tls = false
        wanted.web = false
        wanted.webHost = "10.0.0.3"
        wanted.webPort = 4
        wanted.mediaSecurity = .plain
        wanted.maxConnections = 5
        wanted.webMaxConnections = 6
        wanted.limits.maxPendingHellos = 7
        wanted.limits.adminMaxConnections = 8
        wanted.cluster = ClusterSettings(database: "postgres://pttd@db.example/pttd", node: "n1")
        wanted.floor.maxTalkTime = .seconds(9)
        let changes = ConfigurationChanges(from: running, to: wanted)
        // A section that needs a restart as a whole (`cluster`) is reported by its keys.
        let sections = changes.needsRestart.map { $0.hasPrefix("cluster.") ? "cluster" : $0 }
        #expect(Set(sections) == ConfigurationChanges.restartOnly)
        #expect(changes.live == ["floor.maxTalkTimeMs"])
        let kept = wanted.keepingRestartSettings(of: running)
        let after = ConfigurationChanges(from: running, to: kept)
        #expect(after.needsRestart.isEmpty, "kept: \(after.needsRestart)")
        #expect(after.live == ["floor.maxTalkTimeMs"])
        #expect(ConfigurationChanges(from: running, to: running).isEmpty)
    }
}
