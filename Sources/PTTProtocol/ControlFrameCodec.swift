import Foundation
import NIOCore
import NIOFoundationCompat

/// Splits a byte stream into control messages: a ``LengthPrefixedFrameDecoder`` of ``ControlMessage`` bodies.
///
/// A length over ``ControlFrameLimit/maxBodyBytes`` or an undecodable body throws ``ControlFrameError``;
/// the channel handler above answers with an `error` frame and closes the connection.
public struct ControlFrameDecoder: LengthPrefixedFrameDecoder {
    public typealias InboundOut = ControlMessage

    public init() {}
}

/// Writes control messages as length-prefixed JSON frames (a ``LengthPrefixedFrameEncoder``).
public struct ControlFrameEncoder: LengthPrefixedFrameEncoder {
    public typealias OutboundIn = ControlMessage

    public init() {}
}

/// A control message's frame body is its JSON (``ControlMessageCoding``).
extension ControlMessage: FramedMessage {
    /// Decodes a JSON body; throws ``ControlFrameError/malformed(_:)`` naming what was wrong.
    public init(frameBody: ByteBuffer) throws(ControlFrameError) {
        self = try ControlMessageCoding.decode(
            frameBody.getData(at: frameBody.readerIndex, length: frameBody.readableBytes)!)
    }

    public func writeFrameBody(into buffer: inout ByteBuffer) throws {
        buffer.writeBytes(try ControlMessageCoding.encode(self))
    }
}

/// One control frame, encoded once: the bytes can be written to any number of connections
/// (a broadcast encodes its message once, not once per member).
public struct ControlFrame: Sendable {
    /// The 4-byte length and the JSON body.
    public let bytes: ByteBuffer

    public init(_ message: ControlMessage) throws {
        var buffer = ByteBuffer()
        try Self.write(message, into: &buffer)
        bytes = buffer
    }

    /// Appends `message` as a frame. Throws ``ControlFrameError/tooLarge(length:)`` rather than write
    /// what the other side must refuse.
    public static func write(_ message: ControlMessage, into out: inout ByteBuffer) throws {
        try LengthPrefixedFrame.write(message, into: &out)
    }
}
