import Foundation
import NIOCore
import NIOEmbedded
import PTTProtocol
import Testing

private typealias S = ProtocolSamples

@Suite("Control frames: encoder")
struct ControlFrameEncoderTests {
    @Test func heartbeatIsFourByteLengthThenJSON() throws {
        let json = #"{"seq":1,"type":"heartbeat"}"#
        #expect(try encodedFrame(.heartbeat(Heartbeat(seq: 1))) == [0, 0, 0, 28] + Array(json.utf8))
    }

    @Test(arguments: S.all)
    func everyMessageIsBigEndianLengthPlusItsJSONBody(sample: ProtocolSample) throws {
        let body = Array(try ControlMessageCoding.encode(sample.message))
        let frame = try encodedFrame(sample.message)
        #expect(frame == handFrame(body))
        #expect(frame.count == 4 + body.count)
    }

    @Test func lengthAboveOneByteIsBigEndian() throws {
        let message = ControlMessage.welcome(
            Welcome(
                version: 1, server: "s", session: "x", heartbeatIntervalMs: 1,
                memberships: Array(repeating: S.joined, count: 3)))
        let frame = try encodedFrame(message)
        let length = frame.count - 4
        #expect(length > 0xFF)
        #expect(Array(frame.prefix(4)) == [0, 0, UInt8(length / 256), UInt8(length % 256)])
    }

    @Test func severalWritesGiveSeveralFramesInOrder() throws {
        let channel = try codecChannel()
        for sample in S.all { try channel.writeOutbound(sample.message) }
        var bytes = [UInt8]()
        while let out = try channel.readOutbound(as: ByteBuffer.self) { bytes += out.readableBytesView }
        #expect(bytes == S.all.flatMap { handFrame(Array(try! ControlMessageCoding.encode($0.message))) })
        #expect(try channel.finish().isClean)
    }
}
