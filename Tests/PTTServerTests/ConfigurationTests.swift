import APNs
import Foundation
import PTTCore
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
