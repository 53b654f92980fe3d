import Logging
import NIOCore
import PTTProtocol
import Synchronization

/// The per-connection handler: enforces `hello` first within its deadline, runs heartbeats, applies
/// backpressure, and hands every request to the ``ControlPlane`` on its event loop in arrival order.
///
/// It writes nothing itself: every frame goes through the ``ControlSession``, which bounds the bytes
/// waiting for the socket and closes within the grace period.
final class ControlSessionHandler: ChannelInboundHandler, @unchecked Sendable {
    // @unchecked: all mutable state is touched only on the connection's event loop.
    typealias InboundIn = ControlMessage

    /// Requests handed to the plane and not yet finished before reading from the socket pauses.
    static let maxRequestsInFlight = 32

    private let plane: ControlPlane
    private let metrics: ServerMetrics
    private let heartbeatInterval: TimeAmount
    private let heartbeatMissLimit: Int
    private let limits: ConnectionLimitsInEffect
    private let sessionID: UInt64
    private let outcome: ConnectionOutcome
    private let gate: HelloGate
    private var logger: Logger

    private var session: ControlSession?
    /// Set when the connection became active: the hello deadline runs and the plane knows the session.
    private var started = false
    private var sawHello = false
    private var closing = false
    /// An error to send once the requests already handed to the plane are answered.
    private var pendingReject: ErrorFrame?
    private var requestsInFlight = 0
    private var readPending = false
    private var heartbeatTask: RepeatedTask?
    private var helloTimer: Scheduled<Void>?
    private var heartbeatSeq: UInt64 = 0
    private var unacknowledged = 0

    /// `outcome` records whether the connection authenticated, for admission control when it closes.
    init(plane: ControlPlane, metrics: ServerMetrics, sessionID: UInt64, heartbeatInterval: Duration, heartbeatMissLimit: Int,
         limits: ConnectionLimitsInEffect, outcome: ConnectionOutcome, gate: HelloGate, logger: Logger) {
        self.plane = plane
        self.metrics = metrics
        self.sessionID = sessionID
        self.heartbeatInterval = .nanoseconds(heartbeatInterval.nanoseconds)
        self.heartbeatMissLimit = heartbeatMissLimit
        self.limits = limits
        self.outcome = outcome
        self.gate = gate
        self.logger = logger
        self.logger[metadataKey: "session"] = "\(sessionID)"
    }

    func handlerAdded(context: ChannelHandlerContext) {
        session = ControlSession(id: sessionID, channel: context.channel, limits: limits, metrics: metrics, logger: logger)
        if context.channel.isActive { start(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context: context)
        context.fireChannelActive()
    }

    /// From TCP accept: the hello deadline runs whatever TLS is doing.
    private func start(context: ChannelHandlerContext) {
        guard !started, let session else { return }
        started = true
        metrics.connectionsOpen.increment()
        logger.debug("control connection opened", metadata: ["remote": "\(session.remoteAddress)"])
        let plane = self.plane
        plane.eventLoop.execute { plane.sessionOpened(session) }
        let timeout = limits.helloTimeout
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        helloTimer = context.eventLoop.scheduleTask(in: timeout) {
            let handler = loopBound.value
            guard !handler.sawHello, !handler.closing else { return }
            handler.metrics.connectionClosed(.helloTimeout)
            handler.reject(.notAuthenticated, "no hello within \(timeout.nanoseconds / 1_000_000) ms", reason: "not-authenticated",
                           waitForAnswers: false)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        heartbeatTask?.cancel()
        helloTimer?.cancel()
        heartbeatTask = nil
        helloTimer = nil
        if let session {
            if started {
                metrics.connectionsOpen.decrement()
                logger.debug("control connection closed", metadata: ["remote": "\(session.remoteAddress)"])
                let plane = self.plane
                plane.eventLoop.execute { plane.sessionClosed(session) }
            }
            // The plane drops its reference when it handles the close; nothing here keeps the session alive.
            self.session = nil
        }
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !closing, let session else { return }
        let message = unwrapInboundIn(data)
        switch message {
        case .hello:
            if sawHello {
                return reject(.alreadyAuthenticated, "hello was already sent on this connection", reason: "already-authenticated")
            }
            sawHello = true
            // The deadline is for the client: a hello that arrived in time waits for the plane however busy it is.
            helloTimer?.cancel()
            helloTimer = nil
        case .heartbeat(let beat):
            guard sawHello else { return reject(.notAuthenticated, "the first frame must be hello", reason: "not-authenticated") }
            session.send(.heartbeatAck(HeartbeatAck(seq: beat.seq)))
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
        if requestsInFlight >= Self.maxRequestsInFlight || closing {
            readPending = true
        } else {
            context.read()
        }
    }

    private func requestFinished(context: ChannelHandlerContext) {
        requestsInFlight -= 1
        if requestsInFlight == 0, let error = pendingReject {
            pendingReject = nil
            session?.close(with: error)
            return
        }
        if readPending, !closing, requestsInFlight < Self.maxRequestsInFlight / 2 {
            readPending = false
            context.read()
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard let event = event as? ControlSessionEvent else { return context.fireUserInboundEventTriggered(event) }
        switch event {
        case .authenticated:
            outcome.authenticated.store(true, ordering: .relaxed)
            gate.left(ObjectIdentifier(context.channel))
            helloTimer?.cancel()
            helloTimer = nil
            startHeartbeats(context: context)
        case .requestDone:
            requestFinished(context: context)
        }
    }

    private func startHeartbeats(context: ChannelHandlerContext) {
        guard heartbeatTask == nil, !closing else { return }
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
            metrics.connectionClosed(.heartbeatTimeout)
            logger.info("closing session: heartbeats not acknowledged", metadata: ["missed": "\(unacknowledged)", "remote": "\(session.remoteAddress)"])
            closing = true
            heartbeatTask?.cancel()
            session.close(with: ErrorFrame(code: .heartbeatTimeout, message: "\(unacknowledged) heartbeats were not acknowledged"))
            // The link is presumed dead: the plane forgets the session now (no events or wakes routed to
            // it), not when the socket finally closes.
            let plane = self.plane
            plane.eventLoop.execute { plane.sessionClosed(session) }
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

    /// Answers a protocol violation with an `error` frame, counts it and closes the connection. Requests
    /// already handed to the plane are answered first (`waitForAnswers`): a `join` followed by a bad
    /// frame in the same write gets its `joined`, then the error. Reading stops at once.
    private func reject(_ code: ErrorCode, _ message: String, reason: String, waitForAnswers: Bool = true) {
        guard !closing, let session else { return }
        closing = true
        heartbeatTask?.cancel()
        if code == .notAuthenticated || code == .alreadyAuthenticated || code == .frameTooLarge || code == .malformedFrame {
            metrics.frameRejected(reason: reason)
        }
        logger.info("closing control connection", metadata: ["code": "\(code.rawValue)", "why": "\(message)", "remote": "\(session.remoteAddress)"])
        let error = ErrorFrame(code: code, message: message)
        guard waitForAnswers, requestsInFlight > 0 else { return session.close(with: error) }
        pendingReject = error
        // The plane answers every request it was handed; should it not within the grace period, close anyway.
        session.closeAtGraceDeadline()
    }
}

/// What admission control learns about a connection when it closes.
final class ConnectionOutcome: Sendable {
    /// Whether a `hello` succeeded on it.
    let authenticated = Atomic<Bool>(false)
}
