import Foundation
import Testing

@testable import PTTCore

@Suite("Floor configuration and causes")
struct FloorConfigurationTests {
    private func decode(_ json: String) throws -> FloorConfiguration {
        try JSONDecoder().decode(FloorConfiguration.self, from: Data(json.utf8))
    }

    @Test func defaults() {
        let configuration = FloorConfiguration()
        #expect(configuration.endOfMediaTimeout == .seconds(2))
        #expect(configuration.maxTalkTime == .seconds(30))
        #expect(configuration.preemptionGrace == .seconds(1))
        #expect(configuration.releaseGrace == .milliseconds(500))
        #expect(configuration.queueCapacityPerPriority == 8)
        #expect(configuration.grantToSingleMember)
    }

    @Test func encodesMillisecondsUnderTheDocumentedKeys() throws {
        let configuration = FloorConfiguration(
            endOfMediaTimeout: .milliseconds(1500), maxTalkTime: .seconds(45), preemptionGrace: .milliseconds(250),
            releaseGrace: .milliseconds(800), queueCapacityPerPriority: 3, grantToSingleMember: false)
        let data = try JSONEncoder().encode(configuration)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(
            Set(object.keys) == [
                "endOfMediaTimeoutMs", "maxTalkTimeMs", "preemptionGraceMs", "releaseGraceMs",
                "queueCapacityPerPriority",
                "grantToSingleMember",
            ])
        #expect(object["endOfMediaTimeoutMs"] as? Int == 1500)
        #expect(object["maxTalkTimeMs"] as? Int == 45000)
        #expect(object["preemptionGraceMs"] as? Int == 250)
        #expect(object["releaseGraceMs"] as? Int == 800)
        #expect(object["queueCapacityPerPriority"] as? Int == 3)
        #expect(object["grantToSingleMember"] as? Bool == false)
    }

    @Test(arguments: [
        FloorConfiguration(),
        FloorConfiguration(
            endOfMediaTimeout: .milliseconds(1500), maxTalkTime: .seconds(45),
            preemptionGrace: .milliseconds(250), queueCapacityPerPriority: 3, grantToSingleMember: false),
        FloorConfiguration(
            endOfMediaTimeout: .milliseconds(1), maxTalkTime: .seconds(86400),
            preemptionGrace: .zero, queueCapacityPerPriority: 0, grantToSingleMember: true),
    ])
    func roundTrip(configuration: FloorConfiguration) throws {
        let data = try JSONEncoder().encode(configuration)
        #expect(try JSONDecoder().decode(FloorConfiguration.self, from: data) == configuration)
    }

    @Test func emptyObjectDecodesToDefaults() throws {
        #expect(try decode("{}") == FloorConfiguration())
    }

    @Test func missingKeysTakeDefaults() throws {
        #expect(try decode(#"{"maxTalkTimeMs": 10000}"#) == FloorConfiguration(maxTalkTime: .seconds(10)))
        #expect(
            try decode(#"{"grantToSingleMember": false, "preemptionGraceMs": 0}"#)
                == FloorConfiguration(preemptionGrace: .zero, grantToSingleMember: false))
        #expect(
            try decode(#"{"queueCapacityPerPriority": 0, "endOfMediaTimeoutMs": 500}"#)
                == FloorConfiguration(endOfMediaTimeout: .milliseconds(500), queueCapacityPerPriority: 0))
        #expect(try decode(#"{"unknownKey": 5}"#) == FloorConfiguration())
    }

    @Test(arguments: [
        (#"{"endOfMediaTimeoutMs": -1}"#, "endOfMediaTimeoutMs"),
        (#"{"endOfMediaTimeoutMs": 0}"#, "endOfMediaTimeoutMs"),
        (#"{"maxTalkTimeMs": -30000}"#, "maxTalkTimeMs"),
        (#"{"maxTalkTimeMs": 0}"#, "maxTalkTimeMs"),
        (#"{"preemptionGraceMs": -5}"#, "preemptionGraceMs"),
        (#"{"releaseGraceMs": -1}"#, "releaseGraceMs"),
        (#"{"queueCapacityPerPriority": -1}"#, "queueCapacityPerPriority"),
        (#"{"maxTalkTimeMs": 1000, "queueCapacityPerPriority": -8}"#, "queueCapacityPerPriority"),
    ])
    func invalidValuesAreRejectedNamingTheKey(json: String, key: String) throws {
        do {
            _ = try decode(json)
            Issue.record("decoded \(json)")
        } catch DecodingError.dataCorrupted(let context) {
            #expect(context.codingPath.last?.stringValue == key)
            #expect(context.debugDescription.contains(key))
        }
    }

    @Test func wrongTypeIsADecodingError() {
        #expect(throws: DecodingError.self) { try decode(#"{"maxTalkTimeMs": "long"}"#) }
        #expect(throws: DecodingError.self) { try decode(#"{"grantToSingleMember": 1}"#) }
    }

    @Test func nestedDecodingReportsTheFullPath() throws {
        struct Wrapper: Decodable { var floor: FloorConfiguration }
        do {
            _ = try JSONDecoder().decode(Wrapper.self, from: Data(#"{"floor": {"preemptionGraceMs": -1}}"#.utf8))
            Issue.record("decoded")
        } catch DecodingError.dataCorrupted(let context) {
            #expect(context.codingPath.map(\.stringValue) == ["floor", "preemptionGraceMs"])
        }
    }

    @Test func causesHaveStableWireNames() throws {
        #expect(
            FloorDenyCause.allCases.map(\.rawValue)
                == ["another-member-has-permission", "only-one-participant", "receive-only", "queue-full", "broadcast"])
        #expect(
            FloorRevokeCause.allCases.map(\.rawValue)
                == ["end-of-media", "talk-time-exceeded", "preempted", "revoked-by-operator", "emergency", "broadcast"])
        let data = try JSONEncoder().encode([FloorRevokeCause.preempted])
        #expect(String(decoding: data, as: UTF8.self) == #"["preempted"]"#)
        #expect(try JSONDecoder().decode([FloorDenyCause].self, from: Data(#"["queue-full"]"#.utf8)) == [.queueFull])
    }

    @Test func floorControlExposesItsConfiguration() {
        let configuration = FloorConfiguration(maxTalkTime: .seconds(12), queueCapacityPerPriority: 1)
        #expect(FloorControl(configuration: configuration).configuration == configuration)
    }
}
