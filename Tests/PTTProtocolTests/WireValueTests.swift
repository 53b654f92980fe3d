import Foundation
import PTTProtocol
import Testing

/// One closed set of the protocol, with the spellings Docs/PROTOCOL.md gives its values, in its order.
struct WireValueTable: Sendable, CustomTestStringConvertible {
    var type: any WireValue.Type
    var documented: [String]
    var testDescription: String { "\(type)" }

    static let all: [WireValueTable] = [
        .init(type: FloorStatus.self, documented: ["idle", "taken"]),
        .init(type: LeaveReason.self, documented: ["left", "kicked", "channel-deleted", "user-removed", "removed"]),
        .init(
            type: FloorDenialCause.self,
            documented: [
                "receive-only", "only-one-participant", "queue-full", "another-member-has-permission", "broadcast",
            ]),
        .init(
            type: FloorRevocationCause.self,
            documented: [
                "end-of-media", "talk-time-exceeded", "preempted", "revoked-by-operator", "emergency", "broadcast",
            ]),
        .init(type: EmergencyGrade.self, documented: ["emergency", "imminent-peril"]),
        .init(type: EmergencyClearer.self, documented: ["declarer", "operator"]),
        .init(type: CallKind.self, documented: ["emergency", "private", "broadcast"]),
        .init(type: ScanResume.self, documented: ["live", "catch-up"]),
        .init(type: BroadcastEndReason.self, documented: ["released", "operator", "preempted", "left"]),
        .init(
            type: CallEndReason.self,
            documented: [
                "declined", "no-answer", "hung-up", "silence", "answered-elsewhere", "unavailable", "operator",
            ]),
        .init(type: UserRight.self, documented: ["emergency", "broadcast"]),
        .init(type: ReplayOutcome.self, documented: ["ended", "cancelled"]),
        .init(type: WakeTransport.self, documented: ["local-push", "apns", "none"]),
        .init(type: WakeKind.self, documented: ["wake", "leave", "announce"]),
        .init(type: WakeOutcome.self, documented: ["sent", "acknowledged", "expired", "rejected", "failed"]),
        .init(type: PushType.self, documented: ["pushtotalk", "alert"]),
        .init(type: CertificateSource.self, documented: ["self-signed", "operator"]),
        .init(type: RecordedBurstState.self, documented: ["recording", "complete", "recovered"]),
    ]
}

@Suite("Closed sets on the wire: string enums that keep unknown values")
struct WireValueTests {
    @Test(
        "every known value is spelled as documented, and is the bare JSON string both ways",
        arguments: WireValueTable.all)
    func knownValuesRoundTrip(table: WireValueTable) throws {
        try Self.knownValuesRoundTrip(table.type, documented: table.documented)
    }

    @Test("a value a newer server sends decodes as unknown and encodes again unchanged", arguments: WireValueTable.all)
    func unknownValuesRoundTrip(table: WireValueTable) throws {
        try Self.unknownValueRoundTrips(table.type)
    }

    @Test("a frame with an unknown cause decodes, and encodes again to the same bytes")
    func unknownValueInAFrame() throws {
        let body = Data(
            #"{"cause":"solar-flare","channel":{"id":"6f1c2a4e-8d3b-4c5a-9e7f-0a1b2c3d4e5f","name":"general"},"re":6,"type":"floor-denied"}"#
                .utf8)
        let message = try ControlMessageCoding.decode(body)
        guard case .floorDenied(let denied) = message else { throw WireValueTestFailure("decoded \(message.type)") }
        #expect(denied.cause == .unknown("solar-flare"))
        #expect(!denied.cause.isKnown)
        #expect(try ControlMessageCoding.encode(message) == body)
    }

    @Test("a known value keeps its bytes inside a frame")
    func knownValueInAFrame() throws {
        let body = Data(
            #"{"cause":"queue-full","channel":{"id":"6f1c2a4e-8d3b-4c5a-9e7f-0a1b2c3d4e5f","name":"general"},"re":6,"type":"floor-denied"}"#
                .utf8)
        let message = try ControlMessageCoding.decode(body)
        #expect(message == .floorDenied(FloorDenied(re: 6, channel: ProtocolSamples.plainChannel, cause: .queueFull)))
        #expect(try ControlMessageCoding.encode(message) == body)
    }

    private static func knownValuesRoundTrip<Value: WireValue>(_: Value.Type, documented: [String]) throws {
        #expect(Value.known.map(\.rawValue) == documented)
        for value in Value.known {
            #expect(value.isKnown)
            #expect(Value(rawValue: value.rawValue) == value)
            #expect(value.description == value.rawValue)
            let json = try JSONEncoder().encode(value)
            #expect(String(decoding: json, as: UTF8.self) == "\"\(value.rawValue)\"")
            #expect(try JSONDecoder().decode(Value.self, from: json) == value)
        }
    }

    private static func unknownValueRoundTrips<Value: WireValue>(_: Value.Type) throws {
        let spelling = "from-a-newer-server"
        let value = Value(rawValue: spelling)
        #expect(value == .unknown(spelling))
        #expect(!value.isKnown)
        #expect(value.rawValue == spelling)
        let json = try JSONEncoder().encode(value)
        #expect(String(decoding: json, as: UTF8.self) == "\"\(spelling)\"")
        #expect(try JSONDecoder().decode(Value.self, from: json) == value)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Value.self, from: Data("42".utf8)) }
    }
}

struct WireValueTestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
