import Foundation
import NIOCore
import NIOEmbedded
import PTTProtocol

/// The control-frame path of a connection: the bytes go through `ControlFrameDecoder` in an
/// `EmbeddedChannel` (in two writes, split in the middle), and the whole input is also decoded as
/// one JSON body. Every message decoded must encode and decode back to itself.
enum ControlFrameFuzz {
    static func run(_ input: UnsafeRawBufferPointer) {
        let bytes = [UInt8](input)
        if let message = try? ControlMessageCoding.decode(Data(bytes)) { checkRoundTrip(message) }

        let channel = EmbeddedChannel(handler: ByteToMessageHandler(ControlFrameDecoder()))
        let split = bytes.count / 2
        for part in [bytes[..<split], bytes[split...]] {
            do {
                try channel.writeInbound(channel.allocator.buffer(bytes: part))
            } catch {
                break
            }
        }
        while let message = try? channel.readInbound(as: ControlMessage.self) { checkRoundTrip(message) }
        _ = try? channel.finish()
    }

    static func checkRoundTrip(_ message: ControlMessage) {
        do {
            let body = try ControlMessageCoding.encode(message)
            let again = try ControlMessageCoding.decode(body)
            precondition(again == message, "message changed in an encode/decode round trip")
        } catch {
            preconditionFailure("a decoded message did not encode and decode again: \(error)")
        }
    }
}
