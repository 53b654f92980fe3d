import NIOCore
import NIOEmbedded
import PTTProtocol
import Testing

/// A message of the tests' own: its body is UTF-8 text, and a body that is not UTF-8 is refused.
private struct Note: FramedMessage, Equatable {
    struct NotText: Error, Equatable {}

    var text: String

    init(_ text: String) { self.text = text }

    init(frameBody: ByteBuffer) throws {
        let text = String(decoding: frameBody.readableBytesView, as: UTF8.self)
        guard text.utf8.elementsEqual(frameBody.readableBytesView) else { throw NotText() }
        self.text = text
    }

    func writeFrameBody(into buffer: inout ByteBuffer) throws {
        buffer.writeString(text)
    }
}

/// The shared decoder and encoder for bodies left as bytes, and for ``Note``s.
private struct BodyDecoder: LengthPrefixedFrameDecoder { typealias InboundOut = ByteBuffer }
private struct BodyEncoder: LengthPrefixedFrameEncoder { typealias OutboundIn = ByteBuffer }
private struct NoteDecoder: LengthPrefixedFrameDecoder { typealias InboundOut = Note }
private struct NoteEncoder: LengthPrefixedFrameEncoder { typealias OutboundIn = Note }

/// A channel with `decoder` and `encoder`, as the server, client and node link pipelines have theirs.
private func framingChannel(
    _ decoder: some LengthPrefixedFrameDecoder = BodyDecoder(),
    _ encoder: some LengthPrefixedFrameEncoder = BodyEncoder()
) throws -> EmbeddedChannel {
    let channel = EmbeddedChannel()
    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(decoder))
    try channel.pipeline.syncOperations.addHandler(MessageToByteHandler(encoder))
    return channel
}

/// Every body the channel has decoded so far, as byte arrays.
private func bodies(_ channel: EmbeddedChannel) throws -> [[UInt8]] {
    var out = [[UInt8]]()
    while let body = try channel.readInbound(as: ByteBuffer.self) { out.append(Array(body.readableBytesView)) }
    return out
}

@Suite("Length-prefixed frames: the generic codec")
struct LengthPrefixedFrameCodecTests {
    /// Three bodies of different lengths (empty, short, longer than 255 bytes), and their frames back to back.
    static let sample: [[UInt8]] = [[], Array("hello".utf8), (0..<300).map { UInt8($0 % 251) }]
    static var sampleBytes: [UInt8] { sample.flatMap(handFrame) }

    @Test func framesSplitInTwoAtEveryByteBoundaryComeOutWholeAndInOrder() throws {
        let bytes = Self.sampleBytes
        for split in 0...bytes.count {
            let channel = try framingChannel()
            try channel.writeInbound(buffer(bytes[..<split]))
            let early = try bodies(channel)
            try channel.writeInbound(buffer(bytes[split...]))
            #expect(early + (try bodies(channel)) == Self.sample, "split at \(split)")
            // The first half gives exactly the frames it holds whole, never a part of one.
            let whole = Self.sample.indices.filter { Self.sample[...$0].map { 4 + $0.count }.reduce(0, +) <= split }
            #expect(early == whole.map { Self.sample[$0] }, "split at \(split)")
            #expect(try channel.finish().isClean, "split at \(split)")
        }
    }

    @Test func bytesFedOneAtATimeComeOutAsTheSameFrames() throws {
        let channel = try framingChannel()
        var seen = [[UInt8]]()
        for byte in Self.sampleBytes {
            try channel.writeInbound(buffer([byte]))
            seen += try bodies(channel)
        }
        #expect(seen == Self.sample)
        #expect(try channel.finish().isClean)
    }

    @Test func manyFramesInOneBufferComeOutOneByOne() throws {
        let sent = (0..<1_000).map { index in Array(repeating: UInt8(index % 256), count: index % 37) }
        let channel = try framingChannel()
        try channel.writeInbound(buffer(sent.flatMap(handFrame)))
        #expect(try bodies(channel) == sent)
        #expect(try channel.finish().isClean)
    }

    @Test func aZeroLengthIsAnEmptyBodyNotAWait() throws {
        let channel = try framingChannel()
        try channel.writeInbound(buffer([0, 0, 0, 0, 0, 0, 0, 0]))
        #expect(try bodies(channel) == [[], []])
        try channel.writeOutbound(ByteBuffer())
        #expect(try channel.readOutbound(as: ByteBuffer.self).map { Array($0.readableBytesView) } == [0, 0, 0, 0])
        #expect(try channel.finish().isClean)
    }

    @Test func aZeroLengthBodyGoesToTheMessageWhichMayRefuseIt() throws {
        let channel = try framingChannel(ControlFrameDecoder(), ControlFrameEncoder())
        #expect(throws: ControlFrameError.malformed(ProtocolSamples.malformedReason("")!)) {
            try channel.writeInbound(buffer([0, 0, 0, 0]))
        }
        _ = try? channel.finish()
    }

    @Test func aLengthOverTheLimitIsRefusedAsSoonAsItsFourBytesArrive() throws {
        let channel = try framingChannel()
        try channel.writeInbound(buffer([0x00, 0x01]))
        #expect(throws: ControlFrameError.tooLarge(length: ControlFrameLimit.maxBodyBytes + 1)) {
            try channel.writeInbound(buffer([0x00, 0x01]))
        }
        #expect(try bodies(channel) == [])
        _ = try? channel.finish()
    }

    @Test func aBodyOfExactlyTheLimitIsAccepted() throws {
        let body = [UInt8](repeating: 0x2A, count: ControlFrameLimit.maxBodyBytes)
        let channel = try framingChannel()
        try channel.writeInbound(buffer(handFrame(body)))
        #expect(try bodies(channel) == [body])
        #expect(try channel.finish().isClean)
    }

    @Test func theEncoderRefusesABodyOverTheLimitAndLeavesItsOutputAsItWas() throws {
        var out = ByteBuffer(bytes: [1, 2, 3])
        let huge = ByteBuffer(repeating: 0x2A, count: ControlFrameLimit.maxBodyBytes + 1)
        #expect(throws: ControlFrameError.tooLarge(length: ControlFrameLimit.maxBodyBytes + 1)) {
            try BodyEncoder().encode(data: huge, out: &out)
        }
        #expect(Array(out.readableBytesView) == [1, 2, 3])
        let largest = ByteBuffer(repeating: 0x2A, count: ControlFrameLimit.maxBodyBytes)
        try BodyEncoder().encode(data: largest, out: &out)
        #expect(out.readableBytes == 3 + 4 + ControlFrameLimit.maxBodyBytes)
        #expect(Array(out.readableBytesView.prefix(7)) == [1, 2, 3, 0x00, 0x01, 0x00, 0x00])
    }

    @Test func aMessageTypeOfItsOwnRoundTripsThroughEncoderAndDecoder() throws {
        let channel = try framingChannel(NoteDecoder(), NoteEncoder())
        let notes = [Note(""), Note("push"), Note(String(repeating: "ü", count: 200))]
        for note in notes { try channel.writeOutbound(note) }
        var wire = [UInt8]()
        while let out = try channel.readOutbound(as: ByteBuffer.self) { wire += out.readableBytesView }
        #expect(wire == notes.flatMap { handFrame(Array($0.text.utf8)) })
        try channel.writeInbound(buffer(wire))
        for note in notes { #expect(try channel.readInbound(as: Note.self) == note) }
        #expect(try channel.finish().isClean)
    }

    @Test func framesBeforeABodyTheMessageRefusesAreDeliveredAndNothingAfterIt() throws {
        let channel = try framingChannel(NoteDecoder(), NoteEncoder())
        let bytes = handFrame(Array("one".utf8)) + handFrame([0xFF]) + handFrame(Array("three".utf8))
        #expect(throws: Note.NotText()) { try channel.writeInbound(buffer(bytes)) }
        #expect(try channel.readInbound(as: Note.self) == Note("one"))
        #expect(try channel.readInbound(as: Note.self) == nil)
        _ = try? channel.finish()
    }
}
