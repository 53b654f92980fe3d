import Foundation
import Testing

@testable import PTTCore

@Suite("Wake configuration")
struct WakeConfigurationTests {
    private func decode(_ json: String) throws -> WakeConfiguration {
        try JSONDecoder().decode(WakeConfiguration.self, from: Data(json.utf8))
    }

    @Test func defaults() {
        let configuration = WakeConfiguration()
        #expect(configuration.maxDelay == .seconds(2))
        #expect(configuration.outboxCapacity == 256)
        #expect(configuration.storedPerMember == 32)
        #expect(configuration.announcementTTL == .seconds(3600))
        #expect(configuration.apnsConcurrency == 64)
        #expect(WakeConfiguration.maxAnnouncementTTL == .seconds(2_592_000))
    }

    @Test func encodesTheDocumentedKeysInMillisecondsAndSeconds() throws {
        let configuration = WakeConfiguration(
            maxDelay: .milliseconds(1500), outboxCapacity: 10, storedPerMember: 4,
            announcementTTL: .seconds(600), apnsConcurrency: 8)
        let data = try JSONEncoder().encode(configuration)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(
            Set(object.keys) == [
                "maxDelayMs", "outboxCapacity", "storedPerMember", "announcementTtlSeconds", "apnsConcurrency",
            ])
        #expect(object["maxDelayMs"] as? Int == 1500)
        #expect(object["outboxCapacity"] as? Int == 10)
        #expect(object["storedPerMember"] as? Int == 4)
        #expect(object["announcementTtlSeconds"] as? Int == 600)
        #expect(object["apnsConcurrency"] as? Int == 8)
    }

    @Test(arguments: [
        WakeConfiguration(),
        WakeConfiguration(
            maxDelay: .milliseconds(1500), outboxCapacity: 10, storedPerMember: 4,
            announcementTTL: .seconds(600), apnsConcurrency: 8),
        WakeConfiguration(
            maxDelay: .milliseconds(1), outboxCapacity: 1, storedPerMember: 1,
            announcementTTL: .seconds(1), apnsConcurrency: 1),
        WakeConfiguration(
            maxDelay: .seconds(60), outboxCapacity: 100_000, storedPerMember: 1000,
            announcementTTL: WakeConfiguration.maxAnnouncementTTL, apnsConcurrency: 1000),
    ])
    func roundTrip(configuration: WakeConfiguration) throws {
        let data = try JSONEncoder().encode(configuration)
        #expect(try JSONDecoder().decode(WakeConfiguration.self, from: data) == configuration)
    }

    @Test func emptyObjectDecodesToDefaults() throws {
        #expect(try decode("{}") == WakeConfiguration())
        #expect(try decode(#"{"unknownKey": -5}"#) == WakeConfiguration())
    }

    @Test func missingKeysTakeDefaults() throws {
        #expect(try decode(#"{"maxDelayMs": 500}"#) == WakeConfiguration(maxDelay: .milliseconds(500)))
        #expect(
            try decode(#"{"outboxCapacity": 7, "apnsConcurrency": 3}"#)
                == WakeConfiguration(outboxCapacity: 7, apnsConcurrency: 3))
        #expect(
            try decode(#"{"storedPerMember": 2, "announcementTtlSeconds": 60}"#)
                == WakeConfiguration(storedPerMember: 2, announcementTTL: .seconds(60)))
    }

    @Test(arguments: [
        (#"{"maxDelayMs": 1}"#, WakeConfiguration(maxDelay: .milliseconds(1))),
        (#"{"maxDelayMs": 60000}"#, WakeConfiguration(maxDelay: .seconds(60))),
        (#"{"outboxCapacity": 1}"#, WakeConfiguration(outboxCapacity: 1)),
        (#"{"outboxCapacity": 100000}"#, WakeConfiguration(outboxCapacity: 100_000)),
        (#"{"storedPerMember": 1}"#, WakeConfiguration(storedPerMember: 1)),
        (#"{"storedPerMember": 1000}"#, WakeConfiguration(storedPerMember: 1000)),
        (#"{"announcementTtlSeconds": 1}"#, WakeConfiguration(announcementTTL: .seconds(1))),
        (
            #"{"announcementTtlSeconds": 2592000}"#,
            WakeConfiguration(announcementTTL: WakeConfiguration.maxAnnouncementTTL)
        ),
        (#"{"apnsConcurrency": 1}"#, WakeConfiguration(apnsConcurrency: 1)),
        (#"{"apnsConcurrency": 1000}"#, WakeConfiguration(apnsConcurrency: 1000)),
    ])
    func boundariesAreAccepted(json: String, expected: WakeConfiguration) throws {
        #expect(try decode(json) == expected)
    }

    @Test(arguments: [
        (#"{"maxDelayMs": 0}"#, "maxDelayMs"),
        (#"{"maxDelayMs": -1}"#, "maxDelayMs"),
        (#"{"maxDelayMs": 60001}"#, "maxDelayMs"),
        (#"{"outboxCapacity": 0}"#, "outboxCapacity"),
        (#"{"outboxCapacity": 100001}"#, "outboxCapacity"),
        (#"{"storedPerMember": 0}"#, "storedPerMember"),
        (#"{"storedPerMember": 1001}"#, "storedPerMember"),
        (#"{"announcementTtlSeconds": 0}"#, "announcementTtlSeconds"),
        (#"{"announcementTtlSeconds": 2592001}"#, "announcementTtlSeconds"),
        (#"{"apnsConcurrency": 0}"#, "apnsConcurrency"),
        (#"{"apnsConcurrency": 1001}"#, "apnsConcurrency"),
        (#"{"maxDelayMs": 2000, "apnsConcurrency": -64}"#, "apnsConcurrency"),
    ])
    func outOfRangeValuesAreRejectedNamingTheKey(json: String, key: String) throws {
        do {
            let decoded = try decode(json)
            Issue.record("decoded \(json) as \(decoded)")
        } catch DecodingError.dataCorrupted(let context) {
            #expect(context.codingPath.last?.stringValue == key)
            #expect(context.debugDescription.contains(key))
        }
    }

    @Test func wrongTypesAreDecodingErrors() {
        #expect(throws: DecodingError.self) { try decode(#"{"maxDelayMs": "2s"}"#) }
        #expect(throws: DecodingError.self) { try decode(#"{"outboxCapacity": 1.5}"#) }
        #expect(throws: DecodingError.self) { try decode(#"{"storedPerMember": true}"#) }
        #expect(throws: DecodingError.self) { try decode(#"{"announcementTtlSeconds": 1e30}"#) }
        #expect(throws: DecodingError.self) { try decode(#"[]"#) }
    }

    @Test func nestedDecodingReportsTheFullPath() throws {
        struct Wrapper: Decodable { var wake: WakeConfiguration }
        do {
            let decoded = try JSONDecoder().decode(Wrapper.self, from: Data(#"{"wake": {"storedPerMember": 0}}"#.utf8))
            Issue.record("decoded \(decoded.wake)")
        } catch DecodingError.dataCorrupted(let context) {
            #expect(context.codingPath.map(\.stringValue) == ["wake", "storedPerMember"])
        }
    }
}
