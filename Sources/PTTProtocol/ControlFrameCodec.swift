import Foundation
import NIOCore
import NIOFoundationCompat

/// Splits a byte stream into control messages: a 4-byte big-endian length, then that many bytes of JSON.
///
/// A length over ``ControlFrameLimit/maxBodyBytes`` or an undecodable body throws ``ControlFrameError``;
/// the channel handler above answers with an `error` frame and closes the connection.
public struct ControlFrameDecoder: ByteToMessageDecoder {
    public typealias InboundOut = ControlMessage

    public init() {}

    public mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let length = buffer.getInteger(at: buffer.readerIndex, as: UInt32.self) else { return .needMoreData }
        guard length <= ControlFrameLimit.maxBodyBytes else {
            throw ControlFrameError.tooLarge(length: Int(length))
        }
        guard buffer.readableBytes >= 4 + Int(length) else { return .needMoreData }
        buffer.moveReaderIndex(forwardBy: 4)
        let body = buffer.readData(length: Int(length))!
        let message = try ControlMessageCoding.decode(body)
        context.fireChannelRead(Self.wrapInboundOut(message))
        return .continue
    }

    public mutating func decodeLast(
        context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool
    ) throws -> DecodingState {
        while try decode(context: context, buffer: &buffer) == .continue {}
        return .needMoreData
    }
}

/// Writes control messages as length-prefixed JSON frames.
public struct ControlFrameEncoder: MessageToByteEncoder {
    public typealias OutboundIn = ControlMessage

    public init() {}

    public func encode(data: ControlMessage, out: inout ByteBuffer) throws {
        try ControlFrame.write(data, into: &out)
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
        let body = try ControlMessageCoding.encode(message)
        guard body.count <= ControlFrameLimit.maxBodyBytes else { throw ControlFrameError.tooLarge(length: body.count) }
        out.writeInteger(UInt32(body.count))
        out.writeBytes(body)
    }
}
