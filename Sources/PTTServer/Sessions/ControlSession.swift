import Logging
import NIOCore
import PTTCore
import PTTProtocol
import Synchronization

/// One control connection as the ``ControlPlane`` sees it: something to send frames to and to close.
///
/// Thread-safe: writes hop to the connection's event loop. What is written and not yet taken by the
/// socket is bounded by `limits.outboundQueueBytes`: a peer that stops reading is disconnected
/// (`slow-reader`) instead of growing the server's memory. Every close happens within
/// `limits.closeGrace`, whether or not the last frame could be written.
public final class ControlSession: Sendable, Hashable, CustomStringConvertible {
    public let id: UInt64
    let channel: NIOCore.Channel
    public let remoteAddress: String
    private let queueLimit: Int
    private let closeGrace: TimeAmount
    private let metrics: ServerMetrics
    private let logger: Logger
    /// Bytes handed to the channel and not yet written to the socket.
    private let queuedBytes = Atomic<Int>(0)
    private let closing = Atomic<Bool>(false)
    /// A flush is queued on the connection's loop (frames written until it runs go out in one system call).
    private let flushQueued = Atomic<Bool>(false)
    /// Bytes written and not yet flushed (touched on the connection's loop only).
    private let unflushedBytes = Atomic<Int>(0)
    /// Past this many unflushed bytes a frame is flushed at once: coalescing never makes the bytes waiting
    /// for the socket look like a slow reader (the bound is at least 128 KiB).
    static let flushThreshold = 16 * 1024

    /// Times the grants of this connection's floor asks (``FloorAskTiming``).
    let floorAsks: FloorAskTiming

    /// Fires a ``ControlMessageSent`` event for each `joined`, `welcome` and `left` (only where a handler listens).
    private let announcesMemberships: Bool

    init(
        id: UInt64, channel: NIOCore.Channel, limits: ConnectionLimitsInEffect, metrics: ServerMetrics,
        announcesMemberships: Bool = false, logger: Logger
    ) {
        self.id = id
        self.announcesMemberships = announcesMemberships
        self.channel = channel
        self.remoteAddress = channel.remoteAddress.map { "\($0)" } ?? "unknown"
        self.queueLimit = limits.outboundQueueBytes
        self.closeGrace = limits.closeGrace
        self.metrics = metrics
        self.logger = logger
        self.floorAsks = FloorAskTiming(metrics.channels.floorGrantTimes)
        metrics.control.sessionsInMemory.increment()
    }

    deinit { metrics.control.sessionsInMemory.decrement() }

    /// Bytes queued for this connection now.
    var queued: Int { queuedBytes.load(ordering: .relaxed) }

    /// Queues a frame for this connection.
    public func send(_ message: ControlMessage) {
        guard let frame = encode(message) else { return }
        send(frame, promise: nil, announcing: message)
    }

    /// Queues an already encoded frame (the same bytes may go to many connections).
    func send(_ frame: ControlFrame) {
        send(frame, promise: nil)
    }

    /// Queues the same frame for many connections with one hop per event loop (not one per connection):
    /// a broadcast to a thousand members costs a handful of task hand-overs.
    static func send(_ frame: ControlFrame, to sessions: [ControlSession]) {
        var byLoop: [ObjectIdentifier: (loop: EventLoop, sessions: [ControlSession])] = [:]
        for session in sessions {
            let loop = session.channel.eventLoop
            byLoop[ObjectIdentifier(loop), default: (loop, [])].sessions.append(session)
        }
        for (_, group) in byLoop {
            if group.loop.inEventLoop {
                for session in group.sessions { session.enqueue(frame, promise: nil) }
            } else {
                group.loop.execute { for session in group.sessions { session.enqueue(frame, promise: nil) } }
            }
        }
    }

    /// Queues a frame and reports, from the connection's event loop, when it was written to the socket
    /// (or why it could not be).
    func send(_ message: ControlMessage, written: @escaping @Sendable (Result<Void, Error>) -> Void) {
        let promise = channel.eventLoop.makePromise(of: Void.self)
        promise.futureResult.whenComplete(written)
        guard let frame = encode(message) else { return promise.fail(ChannelError.ioOnClosedChannel) }
        send(frame, promise: promise, announcing: message)
    }

    private func encode(_ message: ControlMessage) -> ControlFrame? {
        do { return try ControlFrame(message) } catch {
            logger.error("cannot encode a control frame", metadata: ["type": "\(message.type)", "error": "\(error)"])
            return nil
        }
    }

    /// `announcing`: the message the frame holds, for a ``ControlMessageSent`` event if it is of a kind announced.
    private func send(
        _ frame: ControlFrame, promise: EventLoopPromise<Void>?, announcing message: ControlMessage? = nil
    ) {
        let announced = message.flatMap {
            announcesMemberships && ControlMessageSent.announces($0.kind) ? ControlMessageSent(message: $0) : nil
        }
        let urgent = message.map { Self.flushesAtOnce($0.kind) } ?? false
        // A floor decision or an error may answer an ask this connection is timing.
        let answer = message.flatMap { FloorAskTiming.answers($0.kind) ? $0 : nil }
        if channel.eventLoop.inEventLoop {
            enqueue(frame, promise: promise, announced: announced, urgent: urgent, answer: answer)
        } else {
            channel.eventLoop.execute {
                self.enqueue(frame, promise: promise, announced: announced, urgent: urgent, answer: answer)
            }
        }
    }

    /// A floor decision for this member leaves at once, not with the loop's next batch: a talker waits for it
    /// with the button held, and the plane may have a thousand members' frames and wakes to queue after it in the
    /// same turn (an emergency's `floor-granted` went out behind them).
    static func flushesAtOnce(_ kind: ControlMessage.Kind) -> Bool {
        switch kind {
        case .floorGranted, .floorDenied, .floorQueued, .floorRevoked, .floorRevokePending: true
        case .hello, .welcome, .heartbeat, .heartbeatAck, .error, .join, .joined, .leave, .left, .pushToken,
            .pushTokenRegistered, .memberJoined, .memberLeft, .floorRequest, .floorRelease, .floorQueueCancelled,
            .floorReleased, .floorTaken, .floorIdle, .push, .pushAck, .replay, .replaying, .replayEnded, .presence,
            .presenceReport, .emergency, .emergencyDeclared, .emergencyClear, .emergencyCleared,
            .call, .callRinging, .callIncoming, .callAccept, .callDecline, .callHangup, .callConnected, .callEnded,
            .broadcast, .broadcastStarted, .broadcastEnded, .scan, .scanSet, .scanSwitched:
            false
        }
    }

    /// On the connection's loop: counts the frame against the bound (bytes handed to the channel and not
    /// yet written to the socket; frames still crossing from the plane's thread are not the peer's doing).
    /// `answer`: a frame that may answer a floor ask, shown to ``floorAsks`` once written.
    private func enqueue(
        _ frame: ControlFrame, promise: EventLoopPromise<Void>?, announced: ControlMessageSent? = nil,
        urgent: Bool = false, answer: ControlMessage? = nil
    ) {
        let size = frame.bytes.readableBytes
        let queued = queuedBytes.add(size, ordering: .relaxed).newValue
        guard queued <= queueLimit else {
            queuedBytes.subtract(size, ordering: .relaxed)
            promise?.fail(ChannelError.outputClosed)
            if beginClosing() {
                metrics.control.connectionClosed(.slowReader)
                logger.notice(
                    "closing control connection: the peer does not read",
                    metadata: [
                        "session": "\(id)", "remote": "\(remoteAddress)", "queuedBytes": "\(queued - size)",
                        "limit": "\(queueLimit)",
                    ])
                channel.close(promise: nil)
            }
            return
        }
        let written = channel.eventLoop.makePromise(of: Void.self)
        written.futureResult.whenComplete { [self] result in
            queuedBytes.subtract(size, ordering: .relaxed)
            promise?.completeWith(result)
        }
        if let announced { channel.triggerUserOutboundEvent(announced, promise: nil) }
        channel.write(frame.bytes, promise: written)
        if urgent || unflushedBytes.add(size, ordering: .relaxed).newValue >= Self.flushThreshold {
            unflushedBytes.store(0, ordering: .relaxed)
            channel.flush()
        } else {
            scheduleFlush()
        }
        if let answer { floorAsks.writing(answer) }
    }

    /// Flushes once the frames already on their way to this loop are written: when the plane sends many
    /// frames to a connection at once (a thousand members joining), they leave in one system call and one
    /// TLS record batch instead of one each.
    private func scheduleFlush() {
        guard !flushQueued.exchange(true, ordering: .relaxed) else { return }
        let channel = self.channel
        channel.eventLoop.execute { [self] in
            flushQueued.store(false, ordering: .relaxed)
            unflushedBytes.store(0, ordering: .relaxed)
            channel.flush()
        }
    }

    /// Marks the session as closing; true for the first caller only.
    private func beginClosing() -> Bool {
        !closing.exchange(true, ordering: .relaxed)
    }

    /// Sends `error` (if any), then closes the connection once it is written, or after `limits.closeGrace`
    /// if it cannot be (a peer that does not read, a TLS handshake that never completes).
    public func close(with error: ErrorFrame? = nil) {
        guard beginClosing() else { return }
        let channel = self.channel
        guard let error, let frame = encode(.error(error)), queued + frame.bytes.readableBytes <= queueLimit else {
            channel.close(promise: nil)
            return
        }
        let deadline = closeAtGraceDeadline()
        let written = channel.eventLoop.makePromise(of: Void.self)
        written.futureResult.whenComplete { _ in
            deadline.cancel()
            channel.close(promise: nil)
        }
        send(frame, promise: written)
    }

    /// Closes the connection `limits.closeGrace` from now if it is still open then (counted `grace-expired`),
    /// whatever it is waiting for.
    @discardableResult
    func closeAtGraceDeadline() -> Scheduled<Void> {
        let channel = self.channel
        let metrics = self.metrics
        return channel.eventLoop.scheduleTask(in: closeGrace) {
            guard channel.isActive else { return }
            metrics.control.connectionClosed(.graceExpired)
            channel.close(promise: nil)
        }
    }

    /// Tells the connection's handler that the plane has finished one of its requests (for backpressure).
    func requestDone() { fire(.requestDone) }

    /// Tells the connection's handler that `hello` succeeded: heartbeats start.
    func authenticated() { fire(.authenticated) }

    private func fire(_ event: ControlSessionEvent) {
        let channel = self.channel
        if channel.eventLoop.inEventLoop {
            channel.pipeline.fireUserInboundEventTriggered(event)
        } else {
            channel.eventLoop.execute { channel.pipeline.fireUserInboundEventTriggered(event) }
        }
    }

    public static func == (lhs: ControlSession, rhs: ControlSession) -> Bool { lhs.id == rhs.id }
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }
    public var description: String { "session #\(id) from \(remoteAddress)" }
}

/// Events the plane sends down a session's pipeline.
enum ControlSessionEvent: Sendable {
    /// `hello` succeeded.
    case authenticated
    /// The plane finished one request of this connection.
    case requestDone
}

/// The connection limits as NIO types, computed once per server.
struct ConnectionLimitsInEffect: Sendable {
    var helloTimeout: TimeAmount
    var closeGrace: TimeAmount
    var outboundQueueBytes: Int

    init(_ limits: ConnectionLimits) {
        helloTimeout = .nanoseconds(limits.helloTimeout.nanoseconds)
        closeGrace = .nanoseconds(limits.closeGrace.nanoseconds)
        outboundQueueBytes = limits.outboundQueueBytes
    }
}
