import Logging
import NIOCore

/// Deadlines of one admin connection, in front of the HTTP codec (it sees the first byte of a request):
/// idle with no request for `idleTimeout`, or a request that has not arrived whole and been answered
/// within `requestTimeout` of its first byte, closes the connection.
///
/// ``AdminHTTPHandler`` reports each answered request with the outbound event ``AdminResponseSent``.
final class AdminDeadlines: ChannelDuplexHandler, @unchecked Sendable {
    // @unchecked: state is touched only on the connection's event loop.
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let idleTimeout: TimeAmount
    private let requestTimeout: TimeAmount
    private let metrics: ServerMetrics
    private let logger: Logger
    private var inRequest = false
    private var timer: Scheduled<Void>?

    init(idleTimeout: TimeAmount, requestTimeout: TimeAmount, metrics: ServerMetrics, logger: Logger) {
        self.idleTimeout = idleTimeout
        self.requestTimeout = requestTimeout
        self.metrics = metrics
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { arm(context: context, phase: .idle, in: idleTimeout) }
    }

    func channelActive(context: ChannelHandlerContext) {
        if timer == nil { arm(context: context, phase: .idle, in: idleTimeout) }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if !inRequest {
            inRequest = true
            arm(context: context, phase: .request, in: requestTimeout)
        }
        context.fireChannelRead(data)
    }

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        guard event is AdminResponseSent else { return context.triggerUserOutboundEvent(event, promise: promise) }
        inRequest = false
        arm(context: context, phase: .idle, in: idleTimeout)
        promise?.succeed()
    }

    private func arm(context: ChannelHandlerContext, phase: AdminDeadlinePhase, in delay: TimeAmount) {
        timer?.cancel()
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(in: delay) {
            let (handler, context) = loopBound.value
            handler.timer = nil
            handler.metrics.admin.timedOut(phase)
            handler.logger.info(
                "closing admin connection at its \(phase.rawValue) deadline",
                metadata: [
                    "remote": "\(context.channel.remoteAddress.map { "\($0)" } ?? "unknown")"
                ])
            context.close(promise: nil)
        }
    }
}

/// Sent outbound by ``AdminHTTPHandler`` once an answer is written: the connection is idle again.
struct AdminResponseSent: Sendable {}
