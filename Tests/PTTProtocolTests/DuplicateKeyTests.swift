import Foundation
import PTTProtocol
import TestSupport
import Testing

@Suite("Duplicate keys are refused")
struct DuplicateKeyTests {
    func decode(_ json: String) throws(ControlFrameError) -> ControlMessage {
        try ControlMessageCoding.decode(Data(json.utf8))
    }

    @Test("a repeated key at the top level is malformed, whichever value a parser would keep")
    func topLevel() {
        #expect(throws: ControlFrameError.malformed("duplicate key 'type'")) {
            try decode(#"{"type":"heartbeat","type":"join","seq":1,"channel":"d"}"#)
        }
        #expect(throws: ControlFrameError.malformed("duplicate key 'seq'")) {
            try decode(#"{"type":"heartbeat","seq":1,"seq":2}"#)
        }
    }

    @Test("a duplicate is named even where the fields it leaves would not decode (PROTOCOL section 2's own example)")
    func beforeFields() {
        #expect(throws: ControlFrameError.malformed("duplicate key 'type'")) {
            try decode(#"{"type":"heartbeat","type":"join"}"#)
        }
        #expect(throws: ControlFrameError.malformed("duplicate key 'seq'")) {
            try decode(#"{"type":"heartbeat","seq":"one","seq":2}"#)
        }
        #expect(throws: ControlFrameError.malformed("duplicate key 'type'")) {
            try decode(#"{"type":"no-such-type","type":"heartbeat"}"#)
        }
    }

    @Test("a body that is not JSON is reported as such, whatever keys it repeats")
    func notJSONFirst() {
        do {
            _ = try decode(#"{"type":"heartbeat","type":"join""#)
            Issue.record("decoded a body that is not JSON")
        } catch {
            #expect(error.code == .malformedFrame)
            #expect(!error.description.contains("duplicate"), "\(error)")
        }
    }

    @Test("a repeated key written with an escape is still the same key")
    func escaped() {
        #expect(throws: ControlFrameError.malformed("duplicate key 'type'")) {
            try decode(#"{"type":"heartbeat","t\u0079pe":"heartbeat","seq":1}"#)
        }
    }

    @Test("a repeated key inside a nested object is malformed")
    func nested() {
        let json = #"{"type":"hello","version":1,"user":"a","secret":"s","device":"d","role":"app","x":{"k":1,"k":2}}"#
        #expect(throws: ControlFrameError.malformed("duplicate key 'k'")) { try decode(json) }
    }

    @Test("the same key in sibling objects, in arrays and as a string value is fine")
    func notDuplicates() throws {
        let json =
            #"{"type":"hello","version":1,"user":"type","secret":"s\"type\"","device":"d","role":"app","a":[{"k":1},{"k":2}],"b":{"k":1}}"#
        guard case .hello(let hello) = try decode(json) else {
            Issue.record("expected hello")
            return
        }
        #expect(hello.user == "type")
    }
}
