import NIOCore

/// A message that travels as the body of a length-prefixed frame (Docs/PROTOCOL.md §2): it reads itself from one
/// frame's body and writes its body. ``LengthPrefixedFrameDecoder`` and ``LengthPrefixedFrameEncoder`` add and check
/// the length; a conforming type only says what the body means.
public protocol FramedMessage {
    /// Reads the message from one whole frame body (without the length prefix). An error here is the frame's
    /// error: the decoder throws it on, and the connection's handler decides what the other side is told.
    init(frameBody: ByteBuffer) throws

    /// Appends the message's body (without the length prefix) to `buffer`.
    func writeFrameBody(into buffer: inout ByteBuffer) throws
}

/// A frame's body as bytes, for readers that look at frames without decoding them (pttbench's members).
extension ByteBuffer: FramedMessage {
    @inlinable
    public init(frameBody: ByteBuffer) { self = frameBody }

    @inlinable
    public func writeFrameBody(into buffer: inout ByteBuffer) {
        var body = self
        buffer.writeBuffer(&body)
    }
}
