import Foundation
import NIOCore
import NIOEmbedded
import PTTProtocol
import Testing

private typealias S = ProtocolSamples

/// A channel with the control frame decoder and encoder, as the server and client pipelines have them.
private func codecChannel() throws -> EmbeddedChannel {
    let channel = EmbeddedChannel()
    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(ControlFrameDecoder()))
    try channel.pipeline.syncOperations.addHandler(MessageToByteHandler(ControlFrameEncoder()))
    return channel
}

/// A frame built by hand: 4-byte big-endian length, then the body.
private func handFrame(_ body: [UInt8]) -> [UInt8] {
    let n = UInt32(body.count)
    return [UInt8(n >> 24), UInt8((n >> 16) & 0xFF), UInt8((n >> 8) & 0xFF), UInt8(n & 0xFF)] + body
}

private func buffer(_ bytes: some Sequence<UInt8>) -> ByteBuffer { ByteBuffer(bytes: Array(bytes)) }

/// The bytes the encoder writes for `message`.
private func encodedFrame(_ message: ControlMessage) throws -> [UInt8] {
    let channel = try codecChannel()
    try channel.writeOutbound(message)
    var bytes = [UInt8]()
    while let out = try channel.readOutbound(as: ByteBuffer.self) { bytes += out.readableBytesView }
    _ = try channel.finish()
    return bytes
}

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
        let message = ControlMessage.welcome(Welcome(version: 1, server: "s", session: "x", heartbeatIntervalMs: 1,
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

@Suite("Control frames: decoder")
struct ControlFrameDecoderTests {
    @Test(arguments: S.all)
    func bytesFedOneAtATimeDecodeToTheSameMessage(sample: ProtocolSample) throws {
        let frame = try encodedFrame(sample.message)
        let channel = try codecChannel()
        for (index, byte) in frame.enumerated() {
            try channel.writeInbound(buffer([byte]))
            if index < frame.count - 1 {
                #expect(try channel.readInbound(as: ControlMessage.self) == nil, "nothing before byte \(index + 1) of \(frame.count)")
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

@Suite("Fingerprints")
struct FingerprintTests {
    // Expected values computed at authoring time with coreutils, e.g.
    //   printf 'abc' | sha256sum | cut -c1-64 | tr a-f A-F | sed 's/../&:/g; s/:$//'
    // and for bytes 0...255: python3 -c "import sys; sys.stdout.buffer.write(bytes(range(256)))" | sha256sum ...

    @Test func sha256OfABC() {
        #expect(Fingerprint.sha256(Array("abc".utf8))
                == "BA:78:16:BF:8F:01:CF:EA:41:41:40:DE:5D:AE:22:23:B0:03:61:A3:96:17:7A:9C:B4:10:FF:61:F2:00:15:AD")
    }

    @Test func sha256OfEveryByteValue() {
        #expect(Fingerprint.sha256((0...255).map { UInt8($0) })
                == "40:AF:F2:E9:D2:D8:92:2E:47:AF:D4:64:8E:69:67:49:71:58:78:5F:BD:1D:A8:70:E7:11:02:66:BF:94:48:80")
    }

    @Test func sha256OfNothing() {
        #expect(Fingerprint.sha256([])
                == "E3:B0:C4:42:98:FC:1C:14:9A:FB:F4:C8:99:6F:B9:24:27:AE:41:E4:64:9B:93:4C:A4:95:99:1B:78:52:B8:55")
    }

    @Test func fingerprintIsThirtyTwoUppercasePairs() {
        let text = Fingerprint.sha256(Array("pttrelay".utf8))
        let pairs = text.split(separator: ":", omittingEmptySubsequences: false)
        #expect(pairs.count == 32)
        #expect(pairs.allSatisfy { $0.count == 2 && $0.allSatisfy { "0123456789ABCDEF".contains($0) } })
        #expect(text.count == 95)
    }
}

@Suite("Encoder limits")
struct ControlFrameEncoderLimitTests {
    @Test("the encoder refuses to send a frame the peer would refuse")
    func oversizedOutbound() throws {
        var buffer = ByteBuffer()
        let huge = ControlMessage.error(ErrorFrame(code: .internal, message: String(repeating: "x", count: ControlFrameLimit.maxBodyBytes)))
        #expect(throws: ControlFrameError.self) { try ControlFrameEncoder().encode(data: huge, out: &buffer) }
        #expect(buffer.readableBytes == 0)
    }
}
