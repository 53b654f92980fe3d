import TestSupport
import Foundation
import PTTProtocol
import Testing

private typealias S = ProtocolSamples

@Suite("Control messages: JSON coding")
struct ControlMessageCodingTests {
    @Test func samplesCoverEveryCaseOnce() {
        let indices = S.all.map { S.caseIndex($0.message) }
        #expect(Set(indices).count == S.caseCount)
        #expect(indices.count == S.caseCount)
        #expect(Set(S.all.map(\.wireType)).count == S.caseCount)
    }

    @Test(arguments: S.all)
    func everyMessageSurvivesARoundTrip(sample: ProtocolSample) throws {
        let body = try ControlMessageCoding.encode(sample.message)
        #expect(try ControlMessageCoding.decode(body) == sample.message)
    }

    @Test(arguments: S.all)
    func typeOnTheWireMatchesTheTable(sample: ProtocolSample) throws {
        #expect(sample.message.type == sample.wireType)
        #expect(try S.object(sample.message)["type"] as? String == sample.wireType)
    }

    @Test(arguments: S.all)
    func encodingIsStable(sample: ProtocolSample) throws {
        // Sorted keys: encoding the same message twice, or the decoded copy, gives the same bytes.
        let first = try ControlMessageCoding.encode(sample.message)
        #expect(try ControlMessageCoding.encode(sample.message) == first)
        #expect(try ControlMessageCoding.encode(try ControlMessageCoding.decode(first)) == first)
    }

    @Test func helloOnTheWire() throws {
        let message = ControlMessage.hello(Hello(user: "ann", secret: "s3cret", device: "dev-1", client: "ptt/1.0"))
        let json = #"{"client":"ptt/1.0","device":"dev-1","role":"app","secret":"s3cret","type":"hello","user":"ann","version":1}"#
        // Keys sorted, slashes not escaped.
        #expect(String(decoding: try ControlMessageCoding.encode(message), as: UTF8.self) == json)
        #expect(try ControlMessageCoding.decode(S.body(json)) == message)
        // A peer that escapes slashes is understood too.
        #expect(try ControlMessageCoding.decode(S.body(json.replacingOccurrences(of: "/", with: #"\/"#))) == message)
    }

    @Test func helloWithoutClientOmitsTheKey() throws {
        let message = ControlMessage.hello(Hello(version: 2, user: "ann", secret: "x", device: "d", role: .pushProvider))
        let json = #"{"device":"d","role":"push-provider","secret":"x","type":"hello","user":"ann","version":2}"#
        #expect(String(decoding: try ControlMessageCoding.encode(message), as: UTF8.self) == json)
    }

    @Test func joinOnTheWire() throws {
        let message = ControlMessage.join(Join(id: 7, channel: "general", displayName: "Ann", receiveOnly: true, pushToken: "abcd"))
        let json = #"{"channel":"general","displayName":"Ann","id":7,"pushToken":"abcd","receiveOnly":true,"type":"join"}"#
        #expect(String(decoding: try ControlMessageCoding.encode(message), as: UTF8.self) == json)
        #expect(try ControlMessageCoding.decode(S.body(json)) == message)
    }

    @Test func minimalJoinDecodesWithOptionalsAbsentOrNull() throws {
        let expected = ControlMessage.join(Join(channel: "general"))
        #expect(try ControlMessageCoding.decode(S.body(#"{"type":"join","channel":"general"}"#)) == expected)
        #expect(try ControlMessageCoding.decode(S.body(#"{"type":"join","channel":"general","id":null,"pushToken":null}"#)) == expected)
        #expect(String(decoding: try ControlMessageCoding.encode(expected), as: UTF8.self) == #"{"channel":"general","type":"join"}"#)
    }

    @Test func floorGrantedOnTheWire() throws {
        let message = ControlMessage.floorGranted(FloorGranted(re: 3, channel: S.channel, talkTimeMs: 30_000))
        let json = #"{"channel":{"id":"6f1c2a4e-8d3b-4c5a-9e7f-0a1b2c3d4e5f","imageURL":"https://example.com/ch/general.png","name":"general"},"re":3,"talkTimeMs":30000,"type":"floor-granted"}"#
        #expect(String(decoding: try ControlMessageCoding.encode(message), as: UTF8.self) == json)
        #expect(try ControlMessageCoding.decode(S.body(json)) == message)
    }

    @Test func errorOnTheWire() throws {
        let message = ControlMessage.error(ErrorFrame(re: 9, code: .noSuchChannel, message: "no channel 'x'"))
        let json = #"{"code":"no-such-channel","message":"no channel 'x'","re":9,"type":"error"}"#
        #expect(String(decoding: try ControlMessageCoding.encode(message), as: UTF8.self) == json)
        #expect(try ControlMessageCoding.decode(S.body(json)) == message)
        let bare = ControlMessage.error(ErrorFrame(code: .shuttingDown, message: "bye"))
        #expect(String(decoding: try ControlMessageCoding.encode(bare), as: UTF8.self)
                == #"{"code":"shutting-down","message":"bye","type":"error"}"#)
    }

    @Test(arguments: ErrorCode.allCases)
    func everyErrorCodeSurvivesARoundTrip(code: ErrorCode) throws {
        let message = ControlMessage.error(ErrorFrame(code: code, message: "m"))
        #expect(try S.object(message)["code"] as? String == code.rawValue)
        #expect(try ControlMessageCoding.decode(try ControlMessageCoding.encode(message)) == message)
    }

    @Test func unknownExtraFieldsAreIgnored() throws {
        #expect(try ControlMessageCoding.decode(S.body(#"{"type":"heartbeat","seq":5,"extra":{"a":[1,2,{"b":null}]},"zzz":null,"n":1.5}"#))
                == .heartbeat(Heartbeat(seq: 5)))
        let json = #"{"type":"floor-idle","channel":{"id":"c","name":"n","color":"red"},"future":true}"#
        #expect(try ControlMessageCoding.decode(S.body(json)) == .floorIdle(FloorChannelEvent(channel: ChannelInfo(id: "c", name: "n"))))
    }

    @Test func sharedPayloadsAreToldApartByType() throws {
        let joined = try ControlMessageCoding.decode(S.body(#"{"type":"member-joined","channel":{"id":"c","name":"n"},"member":{"id":"m","name":"M","user":"u","priority":0,"receiveOnly":false}}"#))
        let left = try ControlMessageCoding.decode(S.body(#"{"type":"member-left","channel":{"id":"c","name":"n"},"member":{"id":"m","name":"M","user":"u","priority":0,"receiveOnly":false}}"#))
        #expect(joined.type == "member-joined")
        #expect(left.type == "member-left")
        #expect(joined != left)
        #expect(try ControlMessageCoding.decode(S.body(#"{"type":"floor-request","channel":"c"}"#)) == .floorRequest(FloorCommand(channel: "c")))
        #expect(try ControlMessageCoding.decode(S.body(#"{"type":"floor-release","channel":"c"}"#)) == .floorRelease(FloorCommand(channel: "c")))
    }
}

@Suite("Control messages: decode errors")
struct ControlMessageDecodeErrorTests {
    @Test func missingFieldIsNamed() {
        #expect(S.malformedReason(#"{"type":"join"}"#) == "missing field 'channel'")
        #expect(S.malformedReason(#"{"type":"heartbeat"}"#) == "missing field 'seq'")
    }

    @Test func missingNestedFieldIsNamedWithItsPath() {
        let reason = S.malformedReason(#"{"type":"floor-granted","talkTimeMs":1,"channel":{"id":"c"}}"#)
        #expect(reason == "missing field 'name' in channel")
    }

    @Test func missingTypeIsNamed() {
        #expect(S.malformedReason(#"{"channel":"general"}"#) == "missing field 'type'")
        #expect(S.malformedReason("{}") == "missing field 'type'")
    }

    @Test func unknownTypeIsNamed() throws {
        let reason = try #require(S.malformedReason(#"{"type":"teleport","channel":"x"}"#))
        #expect(reason.contains("'teleport'"))
        #expect(reason.contains("unknown message type"))
    }

    @Test(arguments: ["hello", "{\"type\":", "", "{'type':'hello'}", "\u{FF}\u{FE}"])
    func nonJSONIsReportedAsInvalidJSON(text: String) throws {
        // The exact words come from Foundation's decoder on some platforms; they must say the JSON is invalid.
        let reason = try #require(S.malformedReason(text))
        #expect(reason.localizedCaseInsensitiveContains("valid JSON"), "\(reason)")
    }

    @Test(arguments: [#"[{"type":"hello"}]"#, "42", #""hello""#, "null"])
    func jsonThatIsNotAnObjectIsReported(text: String) throws {
        let reason = try #require(S.malformedReason(text))
        #expect(reason.contains("body"), "the reason points at the body as a whole: \(reason)")
        #expect(!reason.localizedCaseInsensitiveContains("valid JSON"), "it is valid JSON, just not an object: \(reason)")
    }

    @Test func wrongFieldTypeIsNamed() throws {
        let reason = try #require(S.malformedReason(#"{"type":"heartbeat","seq":"one"}"#))
        #expect(reason.hasPrefix("field 'seq' is not of type"))
        #expect(reason.contains("UInt64"))
        let nested = try #require(S.malformedReason(#"{"type":"floor-queued","position":"2","channel":{"id":"c","name":"n"}}"#))
        #expect(nested.hasPrefix("field 'position' is not of type"))
        let type = try #require(S.malformedReason(#"{"type":7}"#))
        #expect(type.hasPrefix("field 'type' is not of type"))
    }

    @Test func nullRequiredFieldIsNamed() throws {
        let reason = try #require(S.malformedReason(#"{"type":"join","channel":null}"#))
        #expect(reason.hasPrefix("field 'channel' is null"))
    }

    @Test func badEnumValueNamesTheField() throws {
        let reason = try #require(S.malformedReason(#"{"type":"error","code":"oops","message":"m"}"#))
        #expect(reason.hasPrefix("code:"), "\(reason)")
        let role = try #require(S.malformedReason(#"{"type":"hello","version":1,"user":"u","secret":"s","device":"d","role":"robot"}"#))
        #expect(role.hasPrefix("role:"), "\(role)")
    }

    @Test func negativeHeartbeatSequenceIsRefused() throws {
        #expect(S.malformedReason(#"{"type":"heartbeat","seq":-1}"#) != nil)
    }

    @Test func frameErrorsCarryTheirProtocolCodeAndText() {
        #expect(ControlFrameError.tooLarge(length: 70_000).code == .frameTooLarge)
        #expect(ControlFrameError.malformed("x").code == .malformedFrame)
        #expect(ControlFrameError.tooLarge(length: 70_000).description == "frame of 70000 bytes exceeds the limit of 65536 bytes")
        #expect(ControlFrameError.malformed("missing field 'seq'").description == "malformed frame: missing field 'seq'")
    }
}

@Suite("Control messages: request ids")
struct ControlMessageRequestIDTests {
    /// The `re` each sample answers, from the sample table above.
    static let answers: [String: Int] = [
        "error": 9, "joined": 4, "left": 2, "push-token-registered": 3, "floor-granted": 5, "floor-denied": 6,
        "floor-queued": 7, "floor-queue-cancelled": 8, "floor-released": 10,
    ]

    @Test(arguments: S.all)
    func reIsTheRequestIDOfAnswersOnly(sample: ProtocolSample) {
        #expect(sample.message.re == Self.answers[sample.wireType])
    }

    @Test func reOfFloorIdleIsItsRe() {
        #expect(ControlMessage.floorIdle(FloorChannelEvent(re: 12, channel: S.channel)).re == 12)
        #expect(ControlMessage.floorIdle(FloorChannelEvent(channel: S.channel)).re == nil)
    }

    @Test func withIDSetsTheIDOfRequests() throws {
        #expect(ControlMessage.join(Join(channel: "c")).withID(42) == .join(Join(id: 42, channel: "c")))
        #expect(ControlMessage.leave(Leave(id: 1, channel: "c")).withID(42) == .leave(Leave(id: 42, channel: "c")))
        #expect(ControlMessage.pushToken(PushToken(channel: "c", token: "ab")).withID(42) == .pushToken(PushToken(id: 42, channel: "c", token: "ab")))
        #expect(ControlMessage.floorRequest(FloorCommand(channel: "c")).withID(42) == .floorRequest(FloorCommand(id: 42, channel: "c")))
        #expect(ControlMessage.floorRelease(FloorCommand(channel: "c")).withID(42) == .floorRelease(FloorCommand(id: 42, channel: "c")))
        #expect(try S.object(ControlMessage.floorRelease(FloorCommand(channel: "c")).withID(42))["id"] as? Int == 42)
    }

    static let requestTypes: Set<String> = ["join", "leave", "push-token", "floor-request", "floor-release"]

    @Test(arguments: S.all)
    func withIDLeavesOtherMessagesAlone(sample: ProtocolSample) {
        let changed = sample.message.withID(1_000)
        #expect((changed != sample.message) == Self.requestTypes.contains(sample.wireType))
        #expect(changed.type == sample.message.type)
        #expect(changed.re == sample.message.re)
    }
}

@Suite("Hex coding")
struct HexCodingTests {
    @Test func decodesEvenLengthHexInEitherCase() {
        #expect(HexCoding.decode("00") == [0])
        #expect(HexCoding.decode("0A") == [10])
        #expect(HexCoding.decode("0a") == [10])
        #expect(HexCoding.decode("aBcD") == [0xAB, 0xCD])
        #expect(HexCoding.decode("00ff7F80") == [0x00, 0xFF, 0x7F, 0x80])
        #expect(HexCoding.decode("0123456789abcdefABCDEF") == [0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF, 0xAB, 0xCD, 0xEF])
    }

    @Test func emptyIsNil() {
        #expect(HexCoding.decode("") == nil)
    }

    @Test(arguments: ["a", "abc", "0", "12345"])
    func oddLengthIsNil(text: String) {
        #expect(HexCoding.decode(text) == nil)
    }

    @Test(arguments: ["zz", "0g", "g0", " 0", "0 ", "0x12", "12-3", "ab\n", "éé", "１２", "+1", "abcdeF:0"])
    func nonHexIsNil(text: String) {
        #expect(HexCoding.decode(text) == nil)
    }

    @Test func encodesLowercaseTwoDigitsPerByte() {
        #expect(HexCoding.encode([]) == "")
        #expect(HexCoding.encode([0]) == "00")
        #expect(HexCoding.encode([0x00, 0xFF, 0x10, 0xAB, 0x09]) == "00ff10ab09")
    }

    @Test func everyByteValueSurvivesARoundTrip() throws {
        let bytes = (0...255).map { UInt8($0) }
        let text = HexCoding.encode(bytes)
        #expect(text.count == 512)
        #expect(HexCoding.decode(text) == bytes)
        #expect(HexCoding.decode(text.uppercased()) == bytes)
    }

    @Test func randomTokensSurviveARoundTrip() {
        var generator = ProtocolRandom(seed: 99)
        for length in [1, 2, 31, 32, 33, 100, 1024] {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            #expect(HexCoding.decode(HexCoding.encode(bytes)) == bytes)
        }
    }
}

typealias ProtocolRandom = SplitMix64

@Suite("Duplicate keys are refused")
struct DuplicateKeyTests {
    func decode(_ json: String) throws(ControlFrameError) -> ControlMessage {
        try ControlMessageCoding.decode(Data(json.utf8))
    }

    @Test("a repeated key at the top level is malformed, whichever value a parser would keep")
    func topLevel() {
        #expect(throws: ControlFrameError.malformed("duplicate key 'type'")) { try decode(#"{"type":"heartbeat","type":"join","seq":1,"channel":"d"}"#) }
        #expect(throws: ControlFrameError.malformed("duplicate key 'seq'")) { try decode(#"{"type":"heartbeat","seq":1,"seq":2}"#) }
    }

    @Test("a repeated key written with an escape is still the same key")
    func escaped() {
        #expect(throws: ControlFrameError.malformed("duplicate key 'type'")) { try decode(#"{"type":"heartbeat","t\u0079pe":"heartbeat","seq":1}"#) }
    }

    @Test("a repeated key inside a nested object is malformed")
    func nested() {
        let json = #"{"type":"hello","version":1,"user":"a","secret":"s","device":"d","role":"app","x":{"k":1,"k":2}}"#
        #expect(throws: ControlFrameError.malformed("duplicate key 'k'")) { try decode(json) }
    }

    @Test("the same key in sibling objects, in arrays and as a string value is fine")
    func notDuplicates() throws {
        let json = #"{"type":"hello","version":1,"user":"type","secret":"s\"type\"","device":"d","role":"app","a":[{"k":1},{"k":2}],"b":{"k":1}}"#
        guard case .hello(let hello) = try decode(json) else { Issue.record("expected hello"); return }
        #expect(hello.user == "type")
    }
}
