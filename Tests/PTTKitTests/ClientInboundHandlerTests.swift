import NIOCore
import NIOEmbedded
import PTTProtocol
import TestSupport
import Testing

@testable import PTTKit

/// The last handler of the client pipeline: heartbeats answered at once (when asked to), every frame to the
/// ``Dispatcher``, and the connection's end to its stream.
@Suite("Client inbound handler: heartbeats and close")
struct ClientInboundHandlerTests {
    /// A connected channel with the handler, and a recorder of the dispatcher's stream.
    static func channel(acknowledgeHeartbeats: Bool) async throws -> (NIOAsyncTestingChannel, Recorder<ControlMessage>)
    {
        let (messages, continuation) = AsyncStream<ControlMessage>.makeStream()
        let handler = ClientInboundHandler(
            dispatcher: Dispatcher(continuation: continuation), acknowledgeHeartbeats: acknowledgeHeartbeats)
        let channel = await NIOAsyncTestingChannel(handler: handler)
        try await channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 7700))
        let recorder = Recorder<ControlMessage>(describe: \.type)
        Task { await recorder.consume(messages) }
        return (channel, recorder)
    }

    @Test("a heartbeat is acknowledged with its seq, and still reaches the stream")
    func acknowledges() async throws {
        let (channel, recorder) = try await Self.channel(acknowledgeHeartbeats: true)
        try await channel.writeInbound(ControlMessage.heartbeat(Heartbeat(seq: 42)))
        #expect(try await channel.readOutbound(as: ControlMessage.self) == .heartbeatAck(HeartbeatAck(seq: 42)))
        #expect(try await channel.readOutbound(as: ControlMessage.self) == nil)
        #expect(
            try await recorder.next(timeout: TestTimeouts.eventWait, what: "the heartbeat") { _ in true }
                == .heartbeat(Heartbeat(seq: 42)))
        _ = try await channel.finish()
    }

    @Test("a client that does not acknowledge (to test the server) writes nothing")
    func silent() async throws {
        let (channel, recorder) = try await Self.channel(acknowledgeHeartbeats: false)
        try await channel.writeInbound(ControlMessage.heartbeat(Heartbeat(seq: 42)))
        #expect(try await channel.readOutbound(as: ControlMessage.self) == nil)
        #expect(
            try await recorder.next(timeout: TestTimeouts.eventWait, what: "the heartbeat") { _ in true }
                == .heartbeat(Heartbeat(seq: 42)))
        _ = try await channel.finish()
    }

    @Test("other frames are passed on unanswered")
    func passesOn() async throws {
        let (channel, recorder) = try await Self.channel(acknowledgeHeartbeats: true)
        let ack = ControlMessage.heartbeatAck(HeartbeatAck(seq: 3))
        let event = ControlMessage.error(ErrorFrame(code: .noSuchChannel, message: "gone"))
        try await channel.writeInbound(ack)
        try await channel.writeInbound(event)
        #expect(try await channel.readOutbound(as: ControlMessage.self) == nil)
        #expect(try await recorder.next(timeout: TestTimeouts.eventWait, what: "the ack") { _ in true } == ack)
        #expect(try await recorder.next(timeout: TestTimeouts.eventWait, what: "the error") { _ in true } == event)
        _ = try await channel.finish()
    }

    @Test("the connection closing ends the stream")
    func closeEndsStream() async throws {
        let (channel, recorder) = try await Self.channel(acknowledgeHeartbeats: true)
        try await channel.close()
        try await recorder.waitFinished(timeout: TestTimeouts.eventWait)
    }
}
