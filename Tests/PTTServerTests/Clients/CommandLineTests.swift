import Foundation
import PTTProtocol
import ServerTestSupport
import TestSupport
import Testing

/// The commands as a user runs them: `pttd` in its own process, `pttctl` and `ptt monitor` against it.
@Suite("pttd, pttctl and ptt as a user runs them")
struct CommandLineTests {
    func startDaemon(data: String) async throws -> (Subprocess, RuntimeInfo) {
        try await Subprocess.startDaemon(data: data)
    }

    @Test("two monitors show up in pttctl; after kill -9 and a restart the memberships are still there")
    func monitorsAndCrash() async throws {
        let data = TestServer.temporaryDirectory()
        let home = TestServer.temporaryDirectory()
        var (daemon, info) = try await startDaemon(data: data)
        defer { daemon.signal(SIGKILL) }
        #expect(
            daemon.standardError.contains(info.fingerprint ?? "missing"),
            "pttd should print its certificate fingerprint")

        // The admin options work before the subcommand as well as after it.
        let added = try await Subprocess.run("pttctl", ["--data", data, "user", "add", "jane"])
        let secret = try #require(
            added.split(separator: "\n").first { $0.hasPrefix("secret: ") }?.dropFirst("secret: ".count))
        #expect(try await Subprocess.run("pttctl", ["--data=\(data)", "user", "list"]).contains("jane"))
        let env = [
            "PTT_HOME": home, "PTT_SERVER": "127.0.0.1:\(info.controlPort)", "PTT_USER": "jane",
            "PTT_SECRET": String(secret),
        ]
        let first = try Subprocess(
            "ptt",
            ["monitor", "--channel", "deck", "--name", "first", "--stay", "--seconds", TestTimeouts.lifetime(60)],
            environment: env)
        defer { first.signal(SIGKILL) }
        _ = try await first.waitForLine { $0.contains(#""type":"joined""#) }
        let second = try Subprocess(
            "ptt",
            ["monitor", "--channel", "deck", "--name", "second", "--stay", "--seconds", TestTimeouts.lifetime(60)],
            environment: env)
        defer { second.signal(SIGKILL) }
        _ = try await second.waitForLine { $0.contains(#""type":"joined""#) }
        // The first monitor hears the second join, as a JSON line.
        let event = try await first.waitForLine { $0.contains(#""type":"member-joined""#) }
        #expect(event.contains(#""name":"second""#))
        #expect(
            try String(contentsOfFile: home + "/known_hosts", encoding: .utf8).contains(info.fingerprint ?? "missing"))

        let table = try await Subprocess.run("pttctl", ["channels", "--data", data])
        #expect(table.contains("deck"))
        #expect(table.contains("2/2"))
        let json = try await Subprocess.run("pttctl", ["channel", "deck", "--json", "--data", data])
        let detail = try JSONDecoder().decode(ChannelDetail.self, from: Data(json.utf8))
        #expect(Set(detail.members.map(\.name)) == ["first", "second"])
        #expect(detail.members.allSatisfy { $0.connected })

        // Crash: no chance to flush anything.
        daemon.signal(SIGKILL)
        try await daemon.waitForExit()
        #expect(try await first.waitForExit() == 0)
        #expect(first.standardError.contains("server closed the connection"))

        (daemon, info) = try await startDaemon(data: data)
        let after = try await Subprocess.run("pttctl", ["channel", "deck", "--json", "--data", data])
        let kept = try JSONDecoder().decode(ChannelDetail.self, from: Data(after.utf8))
        #expect(Set(kept.members.map(\.id)) == Set(detail.members.map(\.id)))
        #expect(kept.members.allSatisfy { !$0.connected })

        // A graceful stop on SIGTERM.
        daemon.signal(SIGTERM)
        #expect(try await daemon.waitForExit() == 0)
        #expect(daemon.standardError.contains("pttd stopped"))
    }

    @Test(
        "a push-provider monitor stands in for a suspended device: one wake line per talk burst, counted by pttctl wakes"
    )
    func wakeLine() async throws {
        let data = TestServer.temporaryDirectory()
        let home = TestServer.temporaryDirectory()
        let (daemon, info) = try await startDaemon(data: data)
        defer { daemon.signal(SIGKILL) }
        let added = try await Subprocess.run("pttctl", ["user", "add", "jane", "--data", data])
        let secret = try #require(
            added.split(separator: "\n").first { $0.hasPrefix("secret: ") }?.dropFirst("secret: ".count))
        let env = [
            "PTT_HOME": home, "PTT_SERVER": "127.0.0.1:\(info.controlPort)", "PTT_USER": "jane",
            "PTT_SECRET": String(secret),
        ]
        let monitor = try Subprocess(
            "ptt",
            [
                "monitor", "--channel", "deck", "--role", "push-provider", "--device", "phone-2", "--seconds",
                TestTimeouts.lifetime(120),
            ],
            environment: env)
        defer { monitor.signal(SIGKILL) }
        _ = try await monitor.waitForLine { $0.contains(#""type":"joined""#) }
        let channel = try await Subprocess.run("pttctl", ["channel", "deck", "--data", data])
        #expect(channel.contains("local-push"))

        let talk = try Subprocess(
            "ptt", ["talk", "--channel", "deck", "--file", Fixtures.path("burst-20ms-mono.opus")], environment: env)
        let wake = try await monitor.waitForLine(timeout: .seconds(30)) { $0.contains(#""type":"push""#) }
        #expect(wake.contains(#""activeSpeaker":"jane""#))
        #expect(wake.contains(#""pushType":"pushtotalk""#))
        #expect(try await talk.waitForExit() == 0, "ptt talk: \(talk.standardError)")

        let json = try await Subprocess.run("pttctl", ["wakes", "--json", "--data", data])
        let totals = try JSONDecoder().decode(WakeTotals.self, from: Data(json.utf8))
        #expect(totals.counts.map(\.count).reduce(0, +) == 1)
        #expect(wakeCount(totals, .wake, .localPush, .sent) == 1)
        let table = try await Subprocess.run("pttctl", ["wakes", "--data", data])
        #expect(table.contains("local-push"))
        #expect(monitor.outputLines.filter { $0.contains(#""type":"push""#) }.count == 1)

        // An announcement reaches the monitor too, and the monitor acknowledges it.
        _ = try await Subprocess.run(
            "pttctl", ["announce", "deck", "Muster at station 5", "--ttl", "10m", "--data", data])
        let announced = try await monitor.waitForLine { $0.contains("Muster at station 5") }
        #expect(announced.contains(#""priority":5"#))
        let deadline = ContinuousClock.now + .seconds(10).scaled
        while true {
            let text = try await Subprocess.run("pttctl", ["wakes", "--json", "--data", data])
            let now = try JSONDecoder().decode(WakeTotals.self, from: Data(text.utf8))
            if wakeCount(now, .announce, .localPush, .acknowledged) == 1, now.storedAnnouncements == 0 { break }
            guard ContinuousClock.now < deadline else {
                throw TestFailure("the announcement was never acknowledged: \(now)")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    @Test("pttctl explains what is wrong instead of failing silently")
    func pttctlErrors() async throws {
        let empty = TestServer.temporaryDirectory()
        let child = try Subprocess("pttctl", ["channels", "--data", empty])
        #expect(try await child.waitForExit() != 0)
        #expect(child.standardError.contains("is pttd running"))
    }

    @Test("ptt monitor asks for the SRTP suite given with --srtp-suite")
    func monitorSuite() async throws {
        let data = TestServer.temporaryDirectory()
        let (daemon, info) = try await startDaemon(data: data)
        defer { daemon.signal(SIGKILL) }
        let added = try await Subprocess.run("pttctl", ["--data", data, "user", "add", "ivy"])
        let secret = try #require(
            added.split(separator: "\n").first { $0.hasPrefix("secret: ") }?.dropFirst("secret: ".count))
        let monitor = try Subprocess(
            "ptt",
            [
                "monitor", "--channel", "deck", "--srtp-suite", "AEAD_AES_128_GCM", "--seconds",
                TestTimeouts.lifetime(30),
            ],
            environment: [
                "PTT_HOME": TestServer.temporaryDirectory(), "PTT_SERVER": "127.0.0.1:\(info.controlPort)",
                "PTT_USER": "ivy", "PTT_SECRET": String(secret),
            ])
        defer { monitor.signal(SIGKILL) }
        let joined = try await monitor.waitForLine { $0.contains(#""type":"joined""#) }
        #expect(joined.contains(#""suite":"AEAD_AES_128_GCM""#), "\(joined)")
    }
}
