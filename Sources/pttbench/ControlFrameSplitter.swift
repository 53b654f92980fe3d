#if os(Linux)
import NIOCore
import PTTProtocol

/// Splits a control connection's byte stream into frame bodies (a 4-byte big-endian length, then that many bytes;
/// Docs/PROTOCOL.md §2) without decoding them: PTTProtocol's ``LengthPrefixedFrameDecoder`` with `ByteBuffer`
/// bodies, whose refusal of an oversized frame it reports as a `BenchError` about pttd. A frame split across reads
/// (or TLS records) stays in the `ByteToMessageHandler`'s buffer until it is whole; several frames in one read come
/// out one by one.
struct ControlFrameSplitter: ByteToMessageDecoder {
    typealias InboundOut = ByteBuffer

    /// The shared decoder, for bodies left as bytes.
    private struct Bodies: LengthPrefixedFrameDecoder {
        typealias InboundOut = ByteBuffer
    }

    private var frames = Bodies()

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        do {
            return try frames.decode(context: context, buffer: &buffer)
        } catch ControlFrameError.tooLarge(let length) {
            throw BenchError("pttd sent a frame of \(length) bytes, over the protocol's limit")
        }
    }
}
#endif
