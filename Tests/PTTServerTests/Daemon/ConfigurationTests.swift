import APNs
import Foundation
import PTTCore
import ServerTestSupport
import TestSupport
import Testing

@testable import PTTServer

@Suite("The config file")
struct ConfigurationTests {
    func write(_ text: String) throws -> String {
        let path = TestServer.temporaryDirectory() + "/config.json"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test("every key is optional and overrides the default")
    func partialFile() throws {
        let path = try write(#"{"controlPort": 7800, "floor": {"maxTalkTimeMs": 15000}, "heartbeatIntervalMs": 5000}"#)
        let configuration = try ServerConfiguration.load(from: path)
        #expect(configuration.controlPort == 7800)
        #expect(configuration.adminPort == 7701)
        #expect(configuration.adminHost == "127.0.0.1")
        #expect(configuration.floor.maxTalkTime == .seconds(15))
        #expect(configuration.floor.endOfMediaTimeout == .seconds(2))
        #expect(configuration.heartbeatInterval == .seconds(5))
        #expect(configuration.tls)
    }

    @Test("connection limits: every key optional, defaults kept for the rest")
    func limits() throws {
        let path = try write(
            #"{"limits": {"helloTimeoutMs": 3000, "perAddressConnections": 8, "exemptLoopback": false, "adminIdleTimeoutMs": 500}}"#
        )
        let limits = try ServerConfiguration.load(from: path).limits
        #expect(limits.helloTimeout == .seconds(3))
        #expect(limits.perAddressConnections == 8)
        #expect(!limits.exemptLoopback)
        #expect(limits.adminIdleTimeout == .milliseconds(500))
        #expect(limits.outboundQueueBytes == ConnectionLimits().outboundQueueBytes)
        #expect(limits.failedHelloWindow == .seconds(60))
    }

    @Test("control connections are capped below the descriptor limit, keeping a reserve")
    func descriptorBudget() {
        #expect(
            DescriptorBudget.allowed(configuredMax: 10_000, adminMaxConnections: 32, limit: 1024) == 1024 - 128 - 32)
        #expect(DescriptorBudget.allowed(configuredMax: 100, adminMaxConnections: 32, limit: 1024) == 100)
        #expect(DescriptorBudget.allowed(configuredMax: 100, adminMaxConnections: 32, limit: 50) == 1)
        #expect(DescriptorBudget.allowed(configuredMax: 10_000, adminMaxConnections: 32, limit: .max) == 10_000)
    }

    @Test("a bad file names the file and what is wrong in it")
    func errors() throws {
        let cases: [(String, String)] = [
            (#"{"controlPort": "seventy"}"#, "controlPort"),
            (#"{"controlPort": 70000}"#, "controlPort must be 0...65535"),
            (#"{"mediaSecurity": "rot13"}"#, "mediaSecurity"),
            (#"{"floor": {"maxTalkTimeMs": -1}}"#, "maxTalkTimeMs"),
            ("not json", "not valid JSON"),
            (#"{"wake": {"maxDelayMs": 0}}"#, "maxDelayMs"),
            (#"{"wake": {"announcementTtlSeconds": 99999999}}"#, "announcementTtlSeconds"),
            (#"{"limits": {"outboundQueueBytes": 1000}}"#, "outboundQueueBytes must be 131072"),
            (#"{"limits": {"helloTimeoutMs": 0}}"#, "helloTimeoutMs"),
            (#"{"limits": {"perAddressConnections": 0}}"#, "perAddressConnections"),
            (#"{"limits": {"exemptLoopback": "yes"}}"#, "limits.exemptLoopback"),
            (#"{"memberEventsUpTo": -1}"#, "memberEventsUpTo must be at least 0"),
            (#"{"catchUp": {"mode": "everyone"}}"#, "mode must be 'off', 'woken', 'late-joiners'"),
            (#"{"catchUp": {"speed": 1}}"#, "speed must be 1.1...20"),
            (#"{"catchUp": {"serverMaxBytes": 10}}"#, "serverMaxBytes must be"),
            (#"{"recording": {"maxAgeHours": 0}}"#, "maxAgeHours must be 1...87600"),
            (#"{"recording": {"channels": "deck"}}"#, "recording.channels"),
            (
                #"{"apns": {"keyFile": "k.p8", "keyId": "short", "teamId": "TEAM123456", "bundleId": "com.example.walkie"}}"#,
                "apns.keyId"
            ),
            (
                #"{"apns": {"keyFile": "k.p8", "keyId": "KEY1234567", "teamId": "TEAM 12345", "bundleId": "com.example.walkie"}}"#,
                "apns.teamId"
            ),
            (
                #"{"apns": {"keyFile": "k.p8", "keyId": "KEY1234567", "teamId": "TEAM123456", "bundleId": ""}}"#,
                "apns.bundleId"
            ),
            (
                #"{"apns": {"keyFile": "k.p8", "keyId": "KEY1234567", "teamId": "TEAM123456", "bundleId": "b", "environment": "staging"}}"#,
                "apns.environment"
            ),
            (
                #"{"apns": {"keyFile": "k.p8", "keyId": "KEY1234567", "teamId": "TEAM123456", "bundleId": "b", "endpoint": "http://x"}}"#,
                "apns.endpoint"
            ),
            (#"{"apns": {"keyId": "KEY1234567", "teamId": "TEAM123456", "bundleId": "b"}}"#, "keyFile"),
        ]
        for (text, expected) in cases {
            let path = try write(text)
            do {
                _ = try ServerConfiguration.load(from: path)
                Issue.record("accepted \(text)")
            } catch {
                #expect(error.description.contains(path), "\(error)")
                #expect(error.description.contains(expected), "\(error) should mention \(expected)")
            }
        }
        #expect(throws: ConfigurationError.self) { try ServerConfiguration.load(from: "/nonexistent/config.json") }
    }

    @Test(
        "a key that is not a setting is refused, naming its path and the nearest known key",
        arguments: [
            (
                #"{"floor": {"maxTalkTimeMS": 15000}}"#,
                "unknown key 'floor.maxTalkTimeMS' (did you mean floor.maxTalkTimeMs?)"
            ),
            (#"{"maxTalkTimeMs": 15000}"#, "unknown key 'maxTalkTimeMs' (did you mean floor.maxTalkTimeMs?)"),
            (#"{"adminport": 7801}"#, "unknown key 'adminport' (did you mean adminPort?)"),
            (
                #"{"limits": {"helloTimeout": 3000}}"#,
                "unknown key 'limits.helloTimeout' (did you mean limits.helloTimeoutMs?)"
            ),
            (
                #"{"apns": {"keyFile": "k.p8", "keyId": "KEY1234567", "teamId": "TEAM123456", "bundleId": "b", "cafile": "ca.pem"}}"#,
                "unknown key 'apns.cafile' (did you mean apns.caFile?)"
            ),
            (#"{"catchUp": {"mode": "off"}, "zebra": 1}"#, "unknown key 'zebra'; "),
            (
                #"{"zebra": 1, "wake": {"maxDelay": 1}}"#,
                "unknown key 'wake.maxDelay' (did you mean wake.maxDelayMs?); unknown key 'zebra'"
            ),
        ])
    func unknownKey(text: String, message: String) throws {
        let path = try write(text)
        do {
            _ = try ServerConfiguration.load(from: path)
            Issue.record("accepted \(text)")
        } catch {
            #expect(error.description.hasPrefix(path + ": "), "\(error)")
            #expect((error.description + "; ").contains(message), "\(error)")
            if !message.contains("did you mean") { #expect(!error.description.contains("did you mean"), "\(error)") }
        }
    }

    @Test("every key the configuration writes is a known key, and a file with all of them reads back")
    func everyKeyKnown() throws {
        let known = ConfigurationKeys.known.paths.map { $0.joined(separator: ".") }
        for path in [
            "controlPort", "floor", "floor.maxTalkTimeMs", "limits.adminRequestTimeoutMs", "catchUp.speed",
            "recording.channels", "wake.apnsConcurrency", "apns.caFile", "apns.endpoint", "cluster.address",
            "cluster.linkPort", "tlsCertificate", "tlsKey", "logLevel", "webMaxConnections",
        ] {
            #expect(known.contains(path), "\(path) is not known")
        }
        #expect(!known.contains("recording.channels.deck"))
        let path = try write(
            String(decoding: try JSONEncoder().encode(ServerConfiguration.everySetting), as: UTF8.self))
        #expect(try ServerConfiguration.load(from: path) == .everySetting)
    }

    @Test("the packaged config and every config example in the docs load")
    func documentedExamples() throws {
        let root = PackagePaths.root
        _ = try ServerConfiguration.load(from: root.appendingPathComponent("Docs/packaging/config.json").path)
        let documents =
            ["README.md"]
            + (try FileManager.default.contentsOfDirectory(atPath: root.path + "/Docs"))
            .filter { $0.hasSuffix(".md") }.map { "Docs/" + $0 }
        var examples = 0
        for document in documents {
            let text = try String(contentsOfFile: root.path + "/" + document, encoding: .utf8)
            for (index, block) in Self.jsonBlocks(text).enumerated() {
                // A fragment (`"apns": {...}`) is a part of the top-level object.
                let object = block.hasPrefix("{") ? block : "{" + block + "}"
                do {
                    _ = try ServerConfiguration.load(from: try write(object))
                    examples += 1
                } catch {
                    Issue.record("\(document), JSON block \(index + 1): \(error)")
                }
            }
        }
        #expect(examples >= 4, "README's two, CLUSTER's, OPERATIONS' certificate files: found \(examples)")
    }

    @Test("pttd does not start with a misspelt key: it exits 64 and says which key, and the one it meant")
    func startRefused() async throws {
        let path = try write(#"{"controlHost": "127.0.0.1", "floor": {"maxTalkTimeMS": 15000}}"#)
        let daemon = try Subprocess(
            "pttd",
            [
                "--data", TestServer.temporaryDirectory(), "--config", path, "--no-tls", "--control-port", "0",
                "--media-port", "0", "--admin-port", "0", "--web-port", "0", "--web-host", "127.0.0.1",
            ])
        #expect(try await daemon.waitForExit() == 64, "stderr: \(daemon.standardError)")
        #expect(
            daemon.standardError.contains(
                "\(path): unknown key 'floor.maxTalkTimeMS' (did you mean floor.maxTalkTimeMs?)"),
            "\(daemon.standardError)")
        #expect(!daemon.standardError.contains("pttd listening"))
    }

    /// The contents of the Markdown code blocks marked `json`.
    static func jsonBlocks(_ markdown: String) -> [String] {
        var blocks: [String] = []
        var current: [Substring]?
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if current == nil, trimmed == "```json" {
                current = []
            } else if let lines = current, trimmed.hasPrefix("```") {
                blocks.append(lines.joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines))
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    @Test("the encoded defaults read back as the defaults, with and without APNs")
    func roundTrip() throws {
        let data = try JSONEncoder().encode(ServerConfiguration())
        #expect(try JSONDecoder().decode(ServerConfiguration.self, from: data) == ServerConfiguration())
        var withAPNs = ServerConfiguration()
        withAPNs.apns = APNsSettings(
            keyFile: "/etc/pttd/AuthKey.p8", keyId: "KEY1234567", teamId: "TEAM123456", bundleId: "com.example.walkie",
            environment: "sandbox")
        withAPNs.wake.maxDelay = .milliseconds(1500)
        withAPNs.catchUp = CatchUpConfiguration(mode: .lateJoiners, speed: 2.5, channelMaxBytes: 1 << 18)
        withAPNs.recording = RecordingConfiguration(channels: ["deck"], maxAge: .seconds(7200), maxTotalBytes: 5 << 20)
        let decoded = try JSONDecoder().decode(ServerConfiguration.self, from: JSONEncoder().encode(withAPNs))
        #expect(decoded == withAPNs)
        #expect(decoded.apns?.topic == "com.example.walkie.voip-ptt")
        #expect(decoded.apns?.baseURL == "https://api.sandbox.push.apple.com")
    }

    @Test("a missing or unreadable APNs key stops the server at start with a message naming the file")
    func badKeyFile() async throws {
        let directory = TestServer.temporaryDirectory()
        let garbage = directory + "/AuthKey_GARBAGE.p8"
        try "not a key".write(toFile: garbage, atomically: true, encoding: .utf8)
        for keyFile in [directory + "/AuthKey_MISSING.p8", garbage] {
            do {
                try await withTestServer(configure: { c in
                    c.apns = APNsSettings(
                        keyFile: keyFile, keyId: "KEY1234567", teamId: "TEAM123456", bundleId: "com.example.walkie")
                }) { _ in
                    Issue.record("started with \(keyFile)")
                }
            } catch {
                #expect("\(error)".contains(keyFile), "\(error)")
            }
        }
    }
}
