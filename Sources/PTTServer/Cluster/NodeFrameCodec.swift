import Foundation
import NIOCore
import NIOFoundationCompat
import PTTProtocol

/// Node messages in the control protocol's frames (``LengthPrefixedFrameDecoder``): a 4-byte big-endian length (at
/// most ``ControlFrameLimit/maxBodyBytes``), then the JSON of one ``NodeMessage``.
struct NodeFrameDecoder: LengthPrefixedFrameDecoder {
    typealias InboundOut = NodeMessage
}

/// Writes node messages as length-prefixed JSON frames.
struct NodeFrameEncoder: LengthPrefixedFrameEncoder {
    typealias OutboundIn = NodeMessage
}

/// A node message's frame body is its JSON; a body that is not a node message throws the JSON decoder's error,
/// which closes the link (``NodeLinkHandler``).
extension NodeMessage: FramedMessage {
    init(frameBody: ByteBuffer) throws {
        self = try JSONDecoder().decode(NodeMessage.self, from: frameBody)
    }

    func writeFrameBody(into buffer: inout ByteBuffer) throws {
        try JSONEncoder().encode(self, into: &buffer)
    }
}
