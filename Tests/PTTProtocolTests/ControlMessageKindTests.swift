import Foundation
import PTTProtocol
import Testing

private typealias S = ProtocolSamples

@Suite("Control messages: the one table of message types")
struct ControlMessageKindTests {
    @Test("the table has one entry per message case, each with its own wire name")
    func oneEntryPerCase() {
        // `kind` is an exhaustive switch over ControlMessage, so a case without an entry does not compile; the
        // samples hold one message of every case, so an entry without a case has no sample here.
        let kinds = S.all.map(\.message.kind)
        #expect(Set(kinds) == Set(ControlMessage.Kind.allCases))
        #expect(kinds.count == ControlMessage.Kind.allCases.count)
        #expect(Set(ControlMessage.Kind.allCases.map(\.rawValue)).count == ControlMessage.Kind.allCases.count)
    }

    @Test("every message encodes with the type of its kind, and decodes back to that kind", arguments: S.all)
    func encodesWithItsKind(sample: ProtocolSample) throws {
        let kind = sample.message.kind
        #expect(kind.rawValue == sample.wireType)
        #expect(sample.message.type == kind.rawValue)
        #expect(try S.object(sample.message)["type"] as? String == kind.rawValue)
        #expect(try ControlMessageCoding.decode(ControlMessageCoding.encode(sample.message)).kind == kind)
    }

    @Test("a type not in the table is a malformed frame that names it")
    func unknownType() {
        #expect(throws: ControlFrameError.malformed("type: unknown message type 'floor-grab'")) {
            try ControlMessageCoding.decode(Data(#"{"type":"floor-grab","channel":"general"}"#.utf8))
        }
    }
}
