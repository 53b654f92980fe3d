import NIOCore

/// Splits a byte stream into frames, a 4-byte big-endian length then that many bytes of body (Docs/PROTOCOL.md §2),
/// and decodes each body as an `InboundOut`: the one framer of control connections, node links and pttbench. A
/// decoder is a concrete type that names its message, `struct ControlFrameDecoder: LengthPrefixedFrameDecoder`
/// with `InboundOut = ControlMessage`; the decoding is this protocol's.
///
/// A frame split across reads waits in the `ByteToMessageHandler`'s buffer until it is whole; several frames in one
/// read come out one by one; a zero length is an empty body, given to the message like any other. A length over
/// ``ControlFrameLimit/maxBodyBytes`` throws ``ControlFrameError/tooLarge(length:)`` as soon as its 4 bytes are
/// in, without waiting for the body; a body the message refuses throws the message's error. Either way the frames
/// before it have been passed on and nothing after it is read.
///
/// A protocol rather than a generic struct: `ByteToMessageHandler` calls its decoder through the conformance, and a
/// concrete type's conformance runs code specialized for its message (a generic struct's would cast and box each
/// message at run time: about 80 ns more a frame, measured with pttbench's frame bodies).
public protocol LengthPrefixedFrameDecoder: ByteToMessageDecoder where InboundOut: FramedMessage {}

extension LengthPrefixedFrameDecoder {
    @inlinable
    public mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let body = try LengthPrefixedFrame.readBody(from: &buffer) else { return .needMoreData }
        context.fireChannelRead(Self.wrapInboundOut(try InboundOut(frameBody: body)))
        return .continue
    }
}

/// Writes messages as length-prefixed frames; a body over ``ControlFrameLimit/maxBodyBytes`` is refused
/// (``ControlFrameError/tooLarge(length:)``) rather than sent for the other side to refuse. Like
/// ``LengthPrefixedFrameDecoder``, an encoder is a concrete type that names its message (`OutboundIn`).
public protocol LengthPrefixedFrameEncoder: MessageToByteEncoder where OutboundIn: FramedMessage {}

extension LengthPrefixedFrameEncoder {
    @inlinable
    public func encode(data: OutboundIn, out: inout ByteBuffer) throws {
        try LengthPrefixedFrame.write(data, into: &out)
    }
}

/// The frame format itself, with no channel: a 4-byte big-endian length, then at most
/// ``ControlFrameLimit/maxBodyBytes`` bytes of body.
public enum LengthPrefixedFrame {
    /// Takes the next whole frame's body off `buffer`, or returns nil and leaves `buffer` as it was when the frame
    /// is not whole yet. Throws ``ControlFrameError/tooLarge(length:)`` once a length over the limit is readable.
    @inlinable
    public static func readBody(from buffer: inout ByteBuffer) throws(ControlFrameError) -> ByteBuffer? {
        guard let length = buffer.getInteger(at: buffer.readerIndex, as: UInt32.self) else { return nil }
        guard length <= ControlFrameLimit.maxBodyBytes else { throw .tooLarge(length: Int(length)) }
        guard buffer.readableBytes >= 4 + Int(length) else { return nil }
        buffer.moveReaderIndex(forwardBy: 4)
        return buffer.readSlice(length: Int(length))
    }

    /// Appends `message` as one frame. A body over the limit throws ``ControlFrameError/tooLarge(length:)`` and
    /// leaves `out` as it was.
    @inlinable
    public static func write(_ message: some FramedMessage, into out: inout ByteBuffer) throws {
        let start = out.writerIndex
        out.writeInteger(UInt32(0))
        do {
            try message.writeFrameBody(into: &out)
        } catch {
            out.moveWriterIndex(to: start)
            throw error
        }
        let length = out.writerIndex - start - 4
        guard length <= ControlFrameLimit.maxBodyBytes else {
            out.moveWriterIndex(to: start)
            throw ControlFrameError.tooLarge(length: length)
        }
        out.setInteger(UInt32(length), at: start)
    }
}
