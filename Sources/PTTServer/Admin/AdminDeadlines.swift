import Logging
import NIOCore

/// Deadlines of one admin connection, in front of the HTTP codec (it sees the first byte of a request):
/// idle with no request for `idleTimeout`, or a request that has not arrived whole and been answered
/// within `requestTimeout` of its first byte, closes the connection.
///
/// ``AdminHTTPHandler`` (and the web listener's ``WebHTTPHandler``, which uses the same deadlines until a
/// connection becomes a WebSocket) reports each answered request with the outbound event ``AdminResponseSent``.
final class AdminDeadlines: ChannelDuplexHandler, RemovableChannelHandler, @unchecked Sendable {
    // @unchecked: state is touched only on the connection's event loop.
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let idleTimeout: TimeAmount
    private let requestTimeout: TimeAmount
    private let timedOut: @Sendable (AdminDeadlinePhase) -> Void
    private let listener: String
    private let logger: Logger
    private var inRequest = false
    private var timer: Scheduled<Void>?

    /// `timedOut` counts a connection closed at a deadline; `listener` names it in the log (`admin`, `web`).
    init(
        idleTimeout: TimeAmount, requestTimeout: TimeAmount, listener: String = "admin", logger: Logger,
        timedOut: @escaping @Sendable (AdminDeadlinePhase) -> Void
    ) {
        self.idleTimeout = idleTimeout
        self.requestTimeout = requestTimeout
        self.listener = listener
        self.logger = logger
        self.timedOut = timedOut
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { arm(context: context, phase: .idle, in: idleTimeout) }
    }

    func channelActive(context: ChannelHandlerContext) {
        if timer == nil { arm(context: context, phase: .idle, in: idleTimeout) }
        context.fireChannelActive()
    }

    /// Removed when the connection becomes a WebSocket: the control session's own deadlines take over.
    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
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
            handler.timedOut(phase)
            handler.logger.info(
                "closing \(handler.listener) connection at its \(phase.rawValue) deadline",
                metadata: [
                    "remote": "\(context.channel.remoteAddress.map { "\($0)" } ?? "unknown")"
                ])
            context.close(promise: nil)
        }
    }
}

/// Sent outbound by ``AdminHTTPHandler`` once an answer is written: the connection is idle again.
struct AdminResponseSent: Sendable {}
