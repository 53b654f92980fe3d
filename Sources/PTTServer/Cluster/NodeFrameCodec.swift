import Foundation
import NIOCore
import NIOFoundationCompat
import PTTProtocol

/// Node messages in the control protocol's frames: a 4-byte big-endian length (at most
/// ``ControlFrameLimit/maxBodyBytes``), then the JSON of one ``NodeMessage``.
struct NodeFrameDecoder: ByteToMessageDecoder {
    typealias InboundOut = NodeMessage

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let length = buffer.getInteger(at: buffer.readerIndex, as: UInt32.self) else { return .needMoreData }
        guard length <= ControlFrameLimit.maxBodyBytes else { throw ControlFrameError.tooLarge(length: Int(length)) }
        guard buffer.readableBytes >= 4 + Int(length) else { return .needMoreData }
        buffer.moveReaderIndex(forwardBy: 4)
        let body = buffer.readData(length: Int(length))!
        context.fireChannelRead(Self.wrapInboundOut(try JSONDecoder().decode(NodeMessage.self, from: body)))
        return .continue
    }

    mutating func decodeLast(
        context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool
    ) throws -> DecodingState {
        while try decode(context: context, buffer: &buffer) == .continue {}
        return .needMoreData
    }
}

struct NodeFrameEncoder: MessageToByteEncoder {
    typealias OutboundIn = NodeMessage

    func encode(data: NodeMessage, out: inout ByteBuffer) throws {
        let body = try JSONEncoder().encode(data)
        guard body.count <= ControlFrameLimit.maxBodyBytes else { throw ControlFrameError.tooLarge(length: body.count) }
        out.writeInteger(UInt32(body.count))
        out.writeBytes(body)
    }
}
