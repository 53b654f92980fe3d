import Foundation
import PTTProtocol
import TestSupport
import Testing

private typealias S = ProtocolSamples

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
        #expect(
            !reason.localizedCaseInsensitiveContains("valid JSON"), "it is valid JSON, just not an object: \(reason)")
    }

    @Test func wrongFieldTypeIsNamed() throws {
        let reason = try #require(S.malformedReason(#"{"type":"heartbeat","seq":"one"}"#))
        #expect(reason.hasPrefix("field 'seq' is not of type"))
        #expect(reason.contains("UInt64"))
        let nested = try #require(
            S.malformedReason(#"{"type":"floor-queued","position":"2","channel":{"id":"c","name":"n"}}"#))
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
        let role = try #require(
            S.malformedReason(#"{"type":"hello","version":1,"user":"u","secret":"s","device":"d","role":"robot"}"#))
        #expect(role.hasPrefix("role:"), "\(role)")
    }

    @Test func negativeHeartbeatSequenceIsRefused() throws {
        #expect(S.malformedReason(#"{"type":"heartbeat","seq":-1}"#) != nil)
    }

    @Test func frameErrorsCarryTheirProtocolCodeAndText() {
        #expect(ControlFrameError.tooLarge(length: 70_000).code == .frameTooLarge)
        #expect(ControlFrameError.malformed("x").code == .malformedFrame)
        #expect(
            ControlFrameError.tooLarge(length: 70_000).description
                == "frame of 70000 bytes exceeds the limit of 65536 bytes")
        #expect(
            ControlFrameError.malformed("missing field 'seq'").description == "malformed frame: missing field 'seq'")
    }
}
