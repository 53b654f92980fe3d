import Foundation
import NIOCore
import NIOEmbedded
import PTTProtocol
import Testing

@Suite("Encoder limits")
struct ControlFrameEncoderLimitTests {
    @Test("the encoder refuses to send a frame the peer would refuse")
    func oversizedOutbound() throws {
        var buffer = ByteBuffer()
        let huge = ControlMessage.error(
            ErrorFrame(code: .internal, message: String(repeating: "x", count: ControlFrameLimit.maxBodyBytes)))
        #expect(throws: ControlFrameError.self) { try ControlFrameEncoder().encode(data: huge, out: &buffer) }
        #expect(buffer.readableBytes == 0)
    }
}
