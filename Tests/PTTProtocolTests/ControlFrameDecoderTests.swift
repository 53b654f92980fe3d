import Foundation
import NIOCore
import NIOEmbedded
import PTTProtocol
import Testing

private typealias S = ProtocolSamples

@Suite("Control frames: decoder")
struct ControlFrameDecoderTests {
    @Test(arguments: S.all)
    func bytesFedOneAtATimeDecodeToTheSameMessage(sample: ProtocolSample) throws {
        let frame = try encodedFrame(sample.message)
        let channel = try codecChannel()
        for (index, byte) in frame.enumerated() {
            try channel.writeInbound(buffer([byte]))
            if index < frame.count - 1 {
                #expect(
                    try channel.readInbound(as: ControlMessage.self) == nil,
                    "nothing before byte \(index + 1) of \(frame.count)")
            }
        }
        #expect(try channel.readInbound(as: ControlMessage.self) == sample.message)
        #expect(try channel.readInbound(as: ControlMessage.self) == nil)
        #expect(try channel.finish().isClean)
    }

    @Test func aFrameSplitInTwoAtEveryBoundaryDecodes() throws {
        let message = S.all.first { $0.wireType == "joined" }!.message
        let frame = try encodedFrame(message)
        for split in 0...frame.count {
            let channel = try codecChannel()
            try channel.writeInbound(buffer(frame[..<split]))
            if split < frame.count {
                #expect(try channel.readInbound(as: ControlMessage.self) == nil, "split at \(split)")
                try channel.writeInbound(buffer(frame[split...]))
            }
            #expect(try channel.readInbound(as: ControlMessage.self) == message, "split at \(split)")
            #expect(try channel.finish().isClean)
        }
    }

    @Test func severalFramesInOneBufferDecodeToSeveralMessages() throws {
        let channel = try codecChannel()
        let frames = try S.all.map { try encodedFrame($0.message) }
        try channel.writeInbound(buffer(frames.joined()))
        for sample in S.all {
            #expect(try channel.readInbound(as: ControlMessage.self) == sample.message)
        }
        #expect(try channel.readInbound(as: ControlMessage.self) == nil)
        #expect(try channel.finish().isClean)
    }

    @Test func aTrailingPartialFrameWaitsForItsRest() throws {
        let channel = try codecChannel()
        let first = ControlMessage.heartbeat(Heartbeat(seq: 1))
        let second = ControlMessage.heartbeatAck(HeartbeatAck(seq: 2))
        let tail = try encodedFrame(second)
        try channel.writeInbound(buffer(try encodedFrame(first) + tail.prefix(6)))
        #expect(try channel.readInbound(as: ControlMessage.self) == first)
        #expect(try channel.readInbound(as: ControlMessage.self) == nil)
        try channel.writeInbound(buffer(tail.dropFirst(6)))
        #expect(try channel.readInbound(as: ControlMessage.self) == second)
        #expect(try channel.finish().isClean)
    }

    /// A heartbeat whose body is exactly `size` bytes, padded in a field the decoder ignores.
    static func paddedHeartbeat(size: Int) -> [UInt8] {
        let head = Array(#"{"type":"heartbeat","seq":77,"pad":""#.utf8)
        let tail = Array(#""}"#.utf8)
        return head + Array(repeating: UInt8(ascii: "x"), count: size - head.count - tail.count) + tail
    }

    @Test func aBodyOfExactly64KiBIsAccepted() throws {
        let body = Self.paddedHeartbeat(size: 64 * 1024)
        #expect(body.count == 65_536)
        let channel = try codecChannel()
        let frame = handFrame(body)
        #expect(Array(frame.prefix(4)) == [0x00, 0x01, 0x00, 0x00])
        // The length alone is not refused: the decoder waits for the body.
        try channel.writeInbound(buffer(frame.prefix(4)))
        #expect(try channel.readInbound(as: ControlMessage.self) == nil)
        try channel.writeInbound(buffer(frame.dropFirst(4)))
        #expect(try channel.readInbound(as: ControlMessage.self) == .heartbeat(Heartbeat(seq: 77)))
        #expect(try channel.finish().isClean)
    }

    @Test func aLengthOf64KiBPlusOneIsRefusedWithoutWaitingForTheBody() throws {
        let channel = try codecChannel()
        #expect(throws: ControlFrameError.tooLarge(length: 65_537)) {
            try channel.writeInbound(buffer([0x00, 0x01, 0x00, 0x01]))
        }
        #expect(try channel.readInbound(as: ControlMessage.self) == nil)
        _ = try? channel.finish()
    }

    @Test func theLargestLengthIsRefused() throws {
        let channel = try codecChannel()
        #expect(throws: ControlFrameError.tooLarge(length: 0xFFFF_FFFF)) {
            try channel.writeInbound(buffer([0xFF, 0xFF, 0xFF, 0xFF, 0x7B]))
        }
        _ = try? channel.finish()
    }

    @Test(arguments: [#"{"type":"nope"}"#, #"{"type":"join"}"#, "not json", "", "[]"])
    func aMalformedBodyIsRefused(body: String) throws {
        let channel = try codecChannel()
        let error = #expect(throws: ControlFrameError.self) {
            try channel.writeInbound(buffer(handFrame(Array(body.utf8))))
        }
        guard case .malformed(let why) = error else {
            Issue.record("expected .malformed, got \(String(describing: error))")
            return
        }
        #expect(why == S.malformedReason(body))
        #expect(try channel.readInbound(as: ControlMessage.self) == nil)
        _ = try? channel.finish()
    }

    @Test func framesBeforeAMalformedOneAreDelivered() throws {
        let channel = try codecChannel()
        let good = ControlMessage.floorRequest(FloorCommand(id: 3, channel: "general"))
        let bytes = try encodedFrame(good) + handFrame(Array(#"{"type":"floor-request"}"#.utf8))
        #expect(throws: ControlFrameError.malformed("missing field 'channel'")) {
            try channel.writeInbound(buffer(bytes))
        }
        #expect(try channel.readInbound(as: ControlMessage.self) == good)
        _ = try? channel.finish()
    }
}
