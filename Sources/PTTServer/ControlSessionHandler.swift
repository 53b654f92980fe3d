import Logging
import NIOCore
import PTTProtocol

/// The per-connection handler: enforces `hello` first, runs heartbeats, applies backpressure, and hands
/// every request to the ``ControlPlane`` on its event loop in arrival order.
final class ControlSessionHandler: ChannelDuplexHandler, @unchecked Sendable {
    // @unchecked: all mutable state is touched only on the connection's event loop.
    typealias InboundIn = ControlMessage
    typealias OutboundIn = ControlMessage
    typealias OutboundOut = ControlMessage

    /// Requests handed to the plane and not yet finished before reading from the socket pauses.
    static let maxRequestsInFlight = 32

    private let plane: ControlPlane
    private let metrics: ServerMetrics
    private let heartbeatInterval: TimeAmount
    private let heartbeatMissLimit: Int
    private let helloTimeout: TimeAmount
    private let sessionID: UInt64
    private var logger: Logger

    private var session: ControlSession?
    private var sawHello = false
    private var closing = false
    private var requestsInFlight = 0
    private var readPending = false
    private var heartbeatTask: RepeatedTask?
    private var helloTimer: Scheduled<Void>?
    private var heartbeatSeq: UInt64 = 0
    private var unacknowledged = 0

    init(plane: ControlPlane, metrics: ServerMetrics, sessionID: UInt64, heartbeatInterval: Duration, heartbeatMissLimit: Int,
         helloTimeout: Duration, logger: Logger) {
        self.plane = plane
        self.metrics = metrics
        self.sessionID = sessionID
        self.heartbeatInterval = .nanoseconds(heartbeatInterval.nanoseconds)
        self.heartbeatMissLimit = heartbeatMissLimit
        self.helloTimeout = .nanoseconds(helloTimeout.nanoseconds)
        self.logger = logger
        self.logger[metadataKey: "session"] = "\(sessionID)"
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        let eventLoop = context.eventLoop
        let session = ControlSession(id: sessionID, channel: context.channel) {
            eventLoop.execute { loopBound.value.requestFinished() }
        }
        self.session = session
        if context.channel.isActive { start(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context: context)
        context.fireChannelActive()
    }

    private func start(context: ChannelHandlerContext) {
        guard helloTimer == nil, let session else { return }
        metrics.connectionsAccepted.increment()
        metrics.connectionsOpen.increment()
        logger.debug("control connection opened", metadata: ["remote": "\(session.remoteAddress)"])
        let plane = self.plane
        plane.eventLoop.execute { plane.sessionOpened(session) }
        let timeout = helloTimeout
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        helloTimer = context.eventLoop.scheduleTask(in: timeout) {
            let handler = loopBound.value
            guard !handler.sawHello else { return }
            handler.reject(.notAuthenticated, "no hello within \(timeout.nanoseconds / 1_000_000) ms", reason: "not-authenticated")
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        heartbeatTask?.cancel()
        helloTimer?.cancel()
        metrics.connectionsOpen.decrement()
        if let session {
            logger.debug("control connection closed", metadata: ["remote": "\(session.remoteAddress)"])
            let plane = self.plane
            plane.eventLoop.execute { plane.sessionClosed(session) }
        }
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !closing, let session else { return }
        let message = unwrapInboundIn(data)
        switch message {
        case .hello:
            if sawHello {
                reject(.alreadyAuthenticated, "hello was already sent on this connection", reason: "already-authenticated")
                return
            }
            sawHello = true
            helloTimer?.cancel()
        case .heartbeat(let beat):
            guard sawHello else { return reject(.notAuthenticated, "the first frame must be hello", reason: "not-authenticated") }
            context.writeAndFlush(wrapOutboundOut(.heartbeatAck(HeartbeatAck(seq: beat.seq))), promise: nil)
            return
        case .heartbeatAck(let ack):
            guard sawHello else { return reject(.notAuthenticated, "the first frame must be hello", reason: "not-authenticated") }
            // Only an acknowledgement of a heartbeat actually sent counts; an older one still proves the
            // client was alive then.
            guard ack.seq <= heartbeatSeq, heartbeatSeq - ack.seq < UInt64(unacknowledged) else { return }
            unacknowledged = Int(heartbeatSeq - ack.seq)
            let plane = self.plane
            plane.eventLoop.execute { plane.heartbeatAcknowledged(by: session) }
            return
        default:
            guard sawHello else { return reject(.notAuthenticated, "the first frame must be hello", reason: "not-authenticated") }
        }
        requestsInFlight += 1
        let plane = self.plane
        plane.eventLoop.execute { plane.receive(message, from: session) }
    }

    func read(context: ChannelHandlerContext) {
        if requestsInFlight >= Self.maxRequestsInFlight {
            readPending = true
        } else {
            context.read()
        }
    }

    private func requestFinished() {
        requestsInFlight -= 1
        if readPending, requestsInFlight < Self.maxRequestsInFlight / 2, let session {
            readPending = false
            session.channel.read()
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ControlSessionEvent, case .authenticated = event {
            startHeartbeats(context: context)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    private func startHeartbeats(context: ChannelHandlerContext) {
        guard heartbeatTask == nil else { return }
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        heartbeatTask = context.eventLoop.scheduleRepeatedTask(initialDelay: heartbeatInterval, delay: heartbeatInterval) { _ in
            loopBound.value.heartbeatTick()
        }
    }

    private func heartbeatTick() {
        guard !closing, let session else { return }
        if unacknowledged > 0 { metrics.heartbeatsMissed.increment() }
        if unacknowledged >= heartbeatMissLimit {
            metrics.sessionsTimedOut.increment()
            logger.info("closing session: heartbeats not acknowledged", metadata: ["missed": "\(unacknowledged)", "remote": "\(session.remoteAddress)"])
            closing = true
            heartbeatTask?.cancel()
            session.close(with: ErrorFrame(code: .heartbeatTimeout, message: "\(unacknowledged) heartbeats were not acknowledged"))
            return
        }
        heartbeatSeq += 1
        unacknowledged += 1
        session.send(.heartbeat(Heartbeat(seq: heartbeatSeq)))
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        if let frameError = error as? ControlFrameError {
            reject(frameError.code, frameError.description, reason: frameError.code.rawValue)
        } else {
            logger.debug("control connection error", metadata: ["error": "\(error)"])
            context.close(promise: nil)
        }
    }

    /// Answers a protocol violation with an `error` frame, counts it and closes the connection.
    private func reject(_ code: ErrorCode, _ message: String, reason: String) {
        guard !closing, let session else { return }
        closing = true
        if code == .notAuthenticated || code == .alreadyAuthenticated || code == .frameTooLarge || code == .malformedFrame {
            metrics.frameRejected(reason: reason)
        }
        logger.info("closing control connection", metadata: ["code": "\(code.rawValue)", "why": "\(message)", "remote": "\(session.remoteAddress)"])
        session.close(with: ErrorFrame(code: code, message: message))
    }
}
