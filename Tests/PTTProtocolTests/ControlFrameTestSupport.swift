import Foundation
import NIOCore
import NIOEmbedded
import PTTProtocol
import Testing

// Building and encoding control frames for the frame codec suites.

/// A channel with the control frame decoder and encoder, as the server and client pipelines have them.
func codecChannel() throws -> EmbeddedChannel {
    let channel = EmbeddedChannel()
    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(ControlFrameDecoder()))
    try channel.pipeline.syncOperations.addHandler(MessageToByteHandler(ControlFrameEncoder()))
    return channel
}

/// A frame built by hand: 4-byte big-endian length, then the body.
func handFrame(_ body: [UInt8]) -> [UInt8] {
    let n = UInt32(body.count)
    return [UInt8(n >> 24), UInt8((n >> 16) & 0xFF), UInt8((n >> 8) & 0xFF), UInt8(n & 0xFF)] + body
}

func buffer(_ bytes: some Sequence<UInt8>) -> ByteBuffer { ByteBuffer(bytes: Array(bytes)) }

/// The bytes the encoder writes for `message`.
func encodedFrame(_ message: ControlMessage) throws -> [UInt8] {
    let channel = try codecChannel()
    try channel.writeOutbound(message)
    var bytes = [UInt8]()
    while let out = try channel.readOutbound(as: ByteBuffer.self) { bytes += out.readableBytesView }
    _ = try channel.finish()
    return bytes
}
