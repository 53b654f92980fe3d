#if os(Linux)
import NIOCore
import PTTProtocol

/// Splits a control connection's byte stream into frame bodies (a 4-byte big-endian length, then that many bytes;
/// Docs/PROTOCOL.md §2) without decoding them. A frame split across reads (or TLS records) stays in the
/// `ByteToMessageHandler`'s buffer until it is whole; several frames in one read come out one by one.
struct ControlFrameSplitter: ByteToMessageDecoder {
    typealias InboundOut = ByteBuffer

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let length = buffer.getInteger(at: buffer.readerIndex, as: UInt32.self) else { return .needMoreData }
        guard length <= ControlFrameLimit.maxBodyBytes else {
            throw BenchError("pttd sent a frame of \(length) bytes, over the protocol's limit")
        }
        guard buffer.readableBytes >= 4 + Int(length) else { return .needMoreData }
        buffer.moveReaderIndex(forwardBy: 4)
        context.fireChannelRead(Self.wrapInboundOut(buffer.readSlice(length: Int(length))!))
        return .continue
    }

    mutating func decodeLast(
        context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool
    ) throws -> DecodingState {
        while try decode(context: context, buffer: &buffer) == .continue {}
        return .needMoreData
    }
}
#endif
