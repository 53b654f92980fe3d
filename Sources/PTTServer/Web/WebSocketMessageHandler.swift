import Logging
import NIOCore
import NIOWebSocket

/// Runs ``WebSocketMessageAssembly`` on a browser's connection, between NIO's frame decoder and the
/// ``WebSocketControlBridge``: whole messages and control frames go on; a frame that breaks RFC 6455's rules (or
/// that the decoder refused) fails the WebSocket: it is counted in `ptt_control_frames_rejected_total`, the
/// close frame with the RFC's status (1002 or 1009) is sent, and the connection is closed once it is written, or
/// after `closeGrace` if the peer does not read.
final class WebSocketMessageHandler: ChannelInboundHandler, @unchecked Sendable {
    // @unchecked: state is touched only on the connection's event loop.
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private var assembly: WebSocketMessageAssembly
    private let metrics: ServerMetrics
    private let closeGrace: TimeAmount
    private let logger: Logger

    init(maxMessageBytes: Int, metrics: ServerMetrics, closeGrace: TimeAmount, logger: Logger) {
        assembly = WebSocketMessageAssembly(maxMessageBytes: maxMessageBytes)
        self.metrics = metrics
        self.closeGrace = closeGrace
        self.logger = logger
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        run(assembly.received(unwrapInboundIn(data)), context: context)
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        guard let error = error as? NIOWebSocketError else { return context.fireErrorCaught(error) }
        run(assembly.decoderFailed(error), context: context)
    }

    private func run(_ outcome: WebSocketMessageAssembly.Outcome, context: ChannelHandlerContext) {
        switch outcome {
        case .deliver(let frame): context.fireChannelRead(wrapInboundOut(frame))
        case .wait: break
        case .fail(let failure): fail(failure, context: context)
        }
    }

    private func fail(_ failure: WebSocketMessageAssembly.Failure, context: ChannelHandlerContext) {
        metrics.control.frameRejected(failure.rejection)
        logger.debug(
            "WebSocket failed",
            metadata: [
                "reason": "\(failure.reason)", "status": "\(UInt16(webSocketErrorCode: failure.code))",
                "remote": "\(context.channel.remoteAddress.map { "\($0)" } ?? "unknown")",
            ])
        let channel = context.channel
        var body = channel.allocator.buffer(capacity: 2 + failure.reason.utf8.count)
        body.write(webSocketErrorCode: failure.code)
        body.writeString(failure.reason)
        let deadline = channel.eventLoop.scheduleTask(in: closeGrace) { channel.close(promise: nil) }
        context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: body)))
            .whenComplete { _ in
                deadline.cancel()
                channel.close(promise: nil)
            }
    }
}
