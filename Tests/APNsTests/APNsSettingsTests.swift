import APNsTestSupport
import Foundation
import NIOCore
import NIOPosix
import PTTProtocol
import Testing

@testable import APNs

/// The `apns` settings: what `validate()` refuses, by name, and what the accepted values lead to.
@Suite struct APNsSettingsTests {
    static let valid = APNsSettings(
        keyFile: "/etc/pttd/AuthKey_KEY1234567.p8", keyId: "KEY1234567", teamId: "TEAM123456",
        bundleId: "com.example.walkie")

    /// `valid` with one change.
    static func changed(_ change: (inout APNsSettings) -> Void) -> APNsSettings {
        var settings = valid
        change(&settings)
        return settings
    }

    @Test func validSettingsPass() throws {
        try Self.valid.validate()
        try Self.changed { $0.environment = "sandbox" }.validate()
        try Self.changed { $0.endpoint = "https://127.0.0.1:8443" }.validate()
        try Self.changed { $0.bundleId = String(repeating: "a", count: 200) }.validate()
        try Self.changed { $0.timeoutMs = 100 }.validate()
        try Self.changed { $0.timeoutMs = 60_000 }.validate()
        try Self.changed {
            $0.keyId = "0123456789"
            $0.teamId = "abcdefghij"
        }.validate()
    }

    @Test func theMessageQuotesTheRefusedValue() {
        #expect(throws: APNsSettingsError.invalid("apns.keyId must be the 10-character key id, got 'short'")) {
            try Self.changed { $0.keyId = "short" }.validate()
        }
        #expect(APNsSettingsError.invalid("x y").description == "x y")
    }

    @Test(arguments: [
        ("apns.keyFile", APNsSettingsTests.changed { $0.keyFile = "" }),
        ("apns.keyId", APNsSettingsTests.changed { $0.keyId = "KEY123456" }),
        ("apns.keyId", APNsSettingsTests.changed { $0.keyId = "KEY12345678" }),
        ("apns.keyId", APNsSettingsTests.changed { $0.keyId = "KEY-234567" }),
        ("apns.keyId", APNsSettingsTests.changed { $0.keyId = "KEY123456é" }),
        ("apns.teamId", APNsSettingsTests.changed { $0.teamId = "TEAM 12345" }),
        ("apns.teamId", APNsSettingsTests.changed { $0.teamId = "" }),
        ("apns.bundleId", APNsSettingsTests.changed { $0.bundleId = "" }),
        ("apns.bundleId", APNsSettingsTests.changed { $0.bundleId = "com.example walkie" }),
        ("apns.bundleId", APNsSettingsTests.changed { $0.bundleId = "com.example.walkie\n" }),
        ("apns.bundleId", APNsSettingsTests.changed { $0.bundleId = String(repeating: "a", count: 201) }),
        ("apns.environment", APNsSettingsTests.changed { $0.environment = "staging" }),
        ("apns.environment", APNsSettingsTests.changed { $0.environment = "Production" }),
        ("apns.endpoint", APNsSettingsTests.changed { $0.endpoint = "http://127.0.0.1:8443" }),
        ("apns.endpoint", APNsSettingsTests.changed { $0.endpoint = "https://" }),
        ("apns.endpoint", APNsSettingsTests.changed { $0.endpoint = "127.0.0.1:8443" }),
        ("apns.timeoutMs", APNsSettingsTests.changed { $0.timeoutMs = 99 }),
        ("apns.timeoutMs", APNsSettingsTests.changed { $0.timeoutMs = 60_001 }),
    ])
    func aBadValueIsRefusedByName(setting: String, settings: APNsSettings) {
        let error = #expect(throws: APNsSettingsError.self) { try settings.validate() }
        #expect(
            error?.description.hasPrefix(setting + " ") == true, "\(error.map(String.init(describing:)) ?? "no error")")
    }

    @Test func theTopicIsTheBundleIdWithTheVoIPPTTSuffix() {
        #expect(Self.valid.topic == "com.example.walkie.voip-ptt")
        #expect(Self.changed { $0.bundleId = "org.example.a" }.topic == "org.example.a.voip-ptt")
    }

    @Test func theEnvironmentPicksTheServerUnlessAnEndpointOverridesIt() {
        #expect(Self.valid.baseURL == "https://api.push.apple.com")
        #expect(Self.changed { $0.environment = "sandbox" }.baseURL == "https://api.sandbox.push.apple.com")
        #expect(
            Self.changed {
                $0.environment = "sandbox"
                $0.endpoint = "https://127.0.0.1:8443/"
            }.baseURL == "https://127.0.0.1:8443")
        #expect(Self.changed { $0.endpoint = "https://relay.example:443" }.baseURL == "https://relay.example:443")
    }

    @Test func decodingDefaultsTheEnvironmentAndLeavesTheOverridesOut() throws {
        let json =
            #"{"keyFile": "k.p8", "keyId": "KEY1234567", "teamId": "TEAM123456", "bundleId": "com.example.walkie"}"#
        let decoded = try JSONDecoder().decode(APNsSettings.self, from: Data(json.utf8))
        #expect(
            decoded
                == APNsSettings(
                    keyFile: "k.p8", keyId: "KEY1234567", teamId: "TEAM123456", bundleId: "com.example.walkie",
                    environment: "production", endpoint: nil, caFile: nil))
        let full = Self.changed {
            $0.environment = "sandbox"
            $0.endpoint = "https://127.0.0.1:1"
            $0.caFile = "/tmp/ca.pem"
        }
        #expect(try JSONDecoder().decode(APNsSettings.self, from: JSONEncoder().encode(full)) == full)
    }

    @Test func decodingRequiresTheKeyAndIdentifiers() {
        let json = #"{"keyId": "KEY1234567", "teamId": "TEAM123456", "bundleId": "b"}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(APNsSettings.self, from: Data(json.utf8)) }
    }
}
