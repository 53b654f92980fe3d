import Foundation
import PTTProtocol
import TestSupport
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
        let json =
            #"{"client":"ptt/1.0","device":"dev-1","role":"app","secret":"s3cret","type":"hello","user":"ann","version":1}"#
        // Keys sorted, slashes not escaped.
        #expect(String(decoding: try ControlMessageCoding.encode(message), as: UTF8.self) == json)
        #expect(try ControlMessageCoding.decode(S.body(json)) == message)
        // A peer that escapes slashes is understood too.
        #expect(try ControlMessageCoding.decode(S.body(json.replacingOccurrences(of: "/", with: #"\/"#))) == message)
    }

    @Test func helloWithoutClientOmitsTheKey() throws {
        let message = ControlMessage.hello(
            Hello(version: 2, user: "ann", secret: "x", device: "d", role: .pushProvider))
        let json = #"{"device":"d","role":"push-provider","secret":"x","type":"hello","user":"ann","version":2}"#
        #expect(String(decoding: try ControlMessageCoding.encode(message), as: UTF8.self) == json)
    }

    @Test func joinOnTheWire() throws {
        let message = ControlMessage.join(
            Join(id: 7, channel: "general", displayName: "Ann", receiveOnly: true, pushToken: "abcd"))
        let json =
            #"{"channel":"general","displayName":"Ann","id":7,"pushToken":"abcd","receiveOnly":true,"type":"join"}"#
        #expect(String(decoding: try ControlMessageCoding.encode(message), as: UTF8.self) == json)
        #expect(try ControlMessageCoding.decode(S.body(json)) == message)
    }

    @Test func minimalJoinDecodesWithOptionalsAbsentOrNull() throws {
        let expected = ControlMessage.join(Join(channel: "general"))
        #expect(try ControlMessageCoding.decode(S.body(#"{"type":"join","channel":"general"}"#)) == expected)
        #expect(
            try ControlMessageCoding.decode(S.body(#"{"type":"join","channel":"general","id":null,"pushToken":null}"#))
                == expected)
        #expect(
            String(decoding: try ControlMessageCoding.encode(expected), as: UTF8.self)
                == #"{"channel":"general","type":"join"}"#)
    }

    @Test func floorGrantedOnTheWire() throws {
        let message = ControlMessage.floorGranted(FloorGranted(re: 3, channel: S.channel, talkTimeMs: 30_000))
        let json =
            #"{"channel":{"id":"6f1c2a4e-8d3b-4c5a-9e7f-0a1b2c3d4e5f","imageURL":"https://example.com/ch/general.png","name":"general"},"re":3,"talkTimeMs":30000,"type":"floor-granted"}"#
        #expect(String(decoding: try ControlMessageCoding.encode(message), as: UTF8.self) == json)
        #expect(try ControlMessageCoding.decode(S.body(json)) == message)
    }

    @Test func errorOnTheWire() throws {
        let message = ControlMessage.error(ErrorFrame(re: 9, code: .noSuchChannel, message: "no channel 'x'"))
        let json = #"{"code":"no-such-channel","message":"no channel 'x'","re":9,"type":"error"}"#
        #expect(String(decoding: try ControlMessageCoding.encode(message), as: UTF8.self) == json)
        #expect(try ControlMessageCoding.decode(S.body(json)) == message)
        let bare = ControlMessage.error(ErrorFrame(code: .shuttingDown, message: "bye"))
        #expect(
            String(decoding: try ControlMessageCoding.encode(bare), as: UTF8.self)
                == #"{"code":"shutting-down","message":"bye","type":"error"}"#)
    }

    @Test(arguments: ErrorCode.allCases)
    func everyErrorCodeSurvivesARoundTrip(code: ErrorCode) throws {
        let message = ControlMessage.error(ErrorFrame(code: code, message: "m"))
        #expect(try S.object(message)["code"] as? String == code.rawValue)
        #expect(try ControlMessageCoding.decode(try ControlMessageCoding.encode(message)) == message)
    }

    @Test func unknownExtraFieldsAreIgnored() throws {
        #expect(
            try ControlMessageCoding.decode(
                S.body(#"{"type":"heartbeat","seq":5,"extra":{"a":[1,2,{"b":null}]},"zzz":null,"n":1.5}"#))
                == .heartbeat(Heartbeat(seq: 5)))
        let json = #"{"type":"floor-idle","channel":{"id":"c","name":"n","color":"red"},"future":true}"#
        #expect(
            try ControlMessageCoding.decode(S.body(json))
                == .floorIdle(FloorChannelEvent(channel: ChannelInfo(id: "c", name: "n"))))
    }

    @Test func sharedPayloadsAreToldApartByType() throws {
        let joined = try ControlMessageCoding.decode(
            S.body(
                #"{"type":"member-joined","channel":{"id":"c","name":"n"},"member":{"id":"m","name":"M","user":"u","priority":0,"receiveOnly":false}}"#
            ))
        let left = try ControlMessageCoding.decode(
            S.body(
                #"{"type":"member-left","channel":{"id":"c","name":"n"},"member":{"id":"m","name":"M","user":"u","priority":0,"receiveOnly":false}}"#
            ))
        #expect(joined.type == "member-joined")
        #expect(left.type == "member-left")
        #expect(joined != left)
        #expect(
            try ControlMessageCoding.decode(S.body(#"{"type":"floor-request","channel":"c"}"#))
                == .floorRequest(FloorCommand(channel: "c")))
        #expect(
            try ControlMessageCoding.decode(S.body(#"{"type":"floor-release","channel":"c"}"#))
                == .floorRelease(FloorCommand(channel: "c")))
    }
}
