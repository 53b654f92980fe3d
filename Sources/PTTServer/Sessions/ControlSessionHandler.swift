import Logging
import NIOCore
import PTTProtocol
import Synchronization

/// The per-connection handler: carries out what its ``ControlSessionStateMachine`` decides (`hello` first
/// within its deadline, heartbeats, back-pressure, closing after a violation) and hands every request to the
/// ``ControlPlane`` on its event loop in arrival order.
///
/// It writes nothing itself: every frame goes through the ``ControlSession``, which bounds the bytes
/// waiting for the socket and closes within the grace period.
final class ControlSessionHandler: ChannelDuplexHandler, @unchecked Sendable {
    // @unchecked: all mutable state is touched only on the connection's event loop.
    typealias InboundIn = ControlMessage
    /// Frames from the ``ControlSession`` pass through untouched. The handler is outbound too because `read` is an
    /// outbound event: only an outbound handler can hold it back (read back-pressure, and no reads while closing).
    typealias OutboundIn = ByteBuffer

    /// Requests handed to the plane and not yet finished before reading from the socket pauses.
    static let maxRequestsInFlight = 32

    /// What the connection works with, fixed for its life.
    private struct Setup {
        let plane: ControlPlane
        let metrics: ServerMetrics
        let sessionID: UInt64
        let heartbeatInterval: TimeAmount
        let limits: ConnectionLimitsInEffect
        /// Records whether the connection authenticated, for admission control when it closes.
        let outcome: ConnectionOutcome
        let gate: HelloGate
        let announcesMemberships: Bool
    }

    private let setup: Setup
    private var logger: Logger
    private var state: ControlSessionStateMachine

    private var session: ControlSession?
    /// Set while the handler is in the pipeline.
    private var context: ChannelHandlerContext?
    private var heartbeatTask: RepeatedTask?
    private var helloTimer: Scheduled<Void>?

    /// `outcome` records whether the connection authenticated, for admission control when it closes;
    /// `announcesMemberships`: the session fires ``ControlMessageSent`` events (a handler below listens: the web bridge).
    init(
        plane: ControlPlane, metrics: ServerMetrics, sessionID: UInt64, heartbeatInterval: Duration,
        heartbeatMissLimit: Int,
        limits: ConnectionLimitsInEffect, outcome: ConnectionOutcome, gate: HelloGate,
        announcesMemberships: Bool = false, logger: Logger
    ) {
        setup = Setup(
            plane: plane, metrics: metrics, sessionID: sessionID,
            heartbeatInterval: .nanoseconds(heartbeatInterval.nanoseconds),
            limits: limits, outcome: outcome, gate: gate, announcesMemberships: announcesMemberships)
        self.logger = logger
        self.logger[metadataKey: "session"] = "\(sessionID)"
        self.state = ControlSessionStateMachine(
            maxRequestsInFlight: Self.maxRequestsInFlight, heartbeatMissLimit: heartbeatMissLimit)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        session = ControlSession(
            id: setup.sessionID, channel: context.channel, limits: setup.limits, metrics: setup.metrics,
            announcesMemberships: setup.announcesMemberships, logger: logger)
        if context.channel.isActive { run(state.channelActive()) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        run(state.channelActive())
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        heartbeatTask?.cancel()
        helloTimer?.cancel()
        heartbeatTask = nil
        helloTimer = nil
        if let session {
            if state.phase != .idle {
                setup.metrics.control.connectionsOpen.decrement()
                logger.debug("control connection closed", metadata: ["remote": "\(session.remoteAddress)"])
                let plane = setup.plane
                plane.eventLoop.execute { plane.sessionClosed(session) }
            }
            // The plane drops its reference when it handles the close; nothing here keeps the session alive.
            self.session = nil
        }
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard session != nil else { return }
        let message = unwrapInboundIn(data)
        let frame: ControlSessionStateMachine.Frame =
            switch message {
            case .hello: .hello
            case .heartbeat(let beat): .heartbeat(seq: beat.seq)
            case .heartbeatAck(let ack): .heartbeatAck(seq: ack.seq)
            case .welcome, .error, .join, .joined, .leave, .left, .pushToken, .pushTokenRegistered, .memberJoined,
                .memberLeft, .floorRequest, .floorRelease, .floorGranted, .floorDenied, .floorQueued,
                .floorQueueCancelled, .floorReleased, .floorTaken, .floorIdle, .floorRevoked, .floorRevokePending,
                .push, .pushAck, .replay, .replaying, .replayEnded, .presence, .presenceReport, .emergency,
                .emergencyDeclared, .emergencyClear,
                .emergencyCleared, .call, .callRinging, .callIncoming, .callAccept, .callDecline, .callHangup,
                .callConnected, .callEnded, .broadcast, .broadcastStarted, .broadcastEnded, .scan, .scanSet,
                .scanSwitched:
                .request
            }
        session?.floorAsks.read(message)
        run(state.received(frame), message: message)
    }

    func read(context: ChannelHandlerContext) {
        run(state.readRequested())
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard let event = event as? ControlSessionEvent else { return context.fireUserInboundEventTriggered(event) }
        switch event {
        case .authenticated: run(state.helloSucceeded())
        case .requestDone: run(state.requestDone())
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        if let frameError = error as? ControlFrameError {
            run(state.frameError(.init(code: frameError.code, message: frameError.description)))
        } else {
            logger.debug("control connection error", metadata: ["error": "\(error)"])
            context.close(promise: nil)
        }
    }

    // MARK: Carrying out actions

    /// Carries out one action of the state machine; `message` is the frame the action is about, if any.
    private func run(_ action: ControlSessionStateMachine.Action, message: ControlMessage? = nil) {
        guard let session, let context else { return }
        let plane = setup.plane
        switch action {
        case .none:
            break
        case .start:
            setup.metrics.control.connectionsOpen.increment()
            logger.debug("control connection opened", metadata: ["remote": "\(session.remoteAddress)"])
            plane.eventLoop.execute { plane.sessionOpened(session) }
            armHelloDeadline(on: context.eventLoop)
        case .forwardHello:
            // The deadline is for the client: a hello that arrived in time waits for the plane however busy it is.
            helloTimer?.cancel()
            helloTimer = nil
            if let message { plane.eventLoop.execute { plane.receive(message, from: session) } }
        case .forward:
            if let message { plane.eventLoop.execute { plane.receive(message, from: session) } }
        case .answerHeartbeat(let seq):
            session.send(.heartbeatAck(HeartbeatAck(seq: seq)))
        case .heartbeatAcknowledged:
            plane.eventLoop.execute { plane.heartbeatAcknowledged(by: session) }
        case .authenticated(let startHeartbeats):
            setup.outcome.authenticated.store(true, ordering: .relaxed)
            setup.gate.left(ObjectIdentifier(context.channel))
            helloTimer?.cancel()
            helloTimer = nil
            if startHeartbeats { self.startHeartbeats(on: context.eventLoop) }
        case .sendHeartbeat(let seq, let missedOne):
            if missedOne { setup.metrics.control.heartbeatsMissed.increment() }
            session.send(.heartbeat(Heartbeat(seq: seq)))
        case .closeForMissedHeartbeats(let missed):
            setup.metrics.control.heartbeatsMissed.increment()
            setup.metrics.control.sessionsTimedOut.increment()
            setup.metrics.control.connectionClosed(.heartbeatTimeout)
            logger.info(
                "closing session: heartbeats not acknowledged",
                metadata: ["missed": "\(missed)", "remote": "\(session.remoteAddress)"])
            heartbeatTask?.cancel()
            session.close(
                with: ErrorFrame(code: .heartbeatTimeout, message: "\(missed) heartbeats were not acknowledged"))
            // The link is presumed dead: the plane forgets the session now (no events or wakes routed to
            // it), not when the socket finally closes.
            plane.eventLoop.execute { plane.sessionClosed(session) }
        case .closeForHelloTimeout:
            setup.metrics.control.connectionClosed(.helloTimeout)
            let rejection = ControlSessionStateMachine.Rejection(
                code: .notAuthenticated,
                message: "no hello within \(setup.limits.helloTimeout.nanoseconds / 1_000_000) ms")
            closeRejected(rejection, session: session, afterAnswers: false)
        case .reject(let rejection):
            closeRejected(rejection, session: session, afterAnswers: false)
        case .rejectAfterAnswers(let rejection):
            closeRejected(rejection, session: session, afterAnswers: true)
        case .closeAfterAnswers(let error):
            session.close(with: error)
        case .read:
            context.read()
        }
    }

    /// Answers a protocol violation with an `error` frame, counts it and closes the connection: at once, or
    /// (`afterAnswers`) once the requests already handed to the plane are answered, so a `join` followed by a
    /// bad frame in the same write gets its `joined`, then the error. Reading has stopped either way.
    private func closeRejected(
        _ rejection: ControlSessionStateMachine.Rejection, session: ControlSession, afterAnswers: Bool
    ) {
        heartbeatTask?.cancel()
        let counted: Set<ErrorCode> = [.notAuthenticated, .alreadyAuthenticated, .frameTooLarge, .malformedFrame]
        if counted.contains(rejection.code) { setup.metrics.control.frameRejected(FrameRejection(rejection.code)) }
        logger.info(
            "closing control connection",
            metadata: [
                "code": "\(rejection.code.rawValue)", "why": "\(rejection.message)",
                "remote": "\(session.remoteAddress)",
            ])
        guard afterAnswers else {
            return session.close(with: ErrorFrame(code: rejection.code, message: rejection.message))
        }
        // The plane answers every request it was handed; should it not within the grace period, close anyway.
        session.closeAtGraceDeadline()
    }

    private func armHelloDeadline(on eventLoop: EventLoop) {
        let loopBound = NIOLoopBound(self, eventLoop: eventLoop)
        helloTimer = eventLoop.scheduleTask(in: setup.limits.helloTimeout) {
            let handler = loopBound.value
            handler.run(handler.state.helloDeadlinePassed())
        }
    }

    private func startHeartbeats(on eventLoop: EventLoop) {
        let loopBound = NIOLoopBound(self, eventLoop: eventLoop)
        heartbeatTask = eventLoop.scheduleRepeatedTask(
            initialDelay: setup.heartbeatInterval, delay: setup.heartbeatInterval
        ) { _ in
            let handler = loopBound.value
            handler.run(handler.state.heartbeatDue())
        }
    }
}

/// What admission control learns about a connection when it closes.
final class ConnectionOutcome: Sendable {
    /// Whether a `hello` succeeded on it.
    let authenticated = Atomic<Bool>(false)
}
