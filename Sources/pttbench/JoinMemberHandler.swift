#if os(Linux)
import NIOCore
import PTTProtocol

/// When a `join` was written, when its `joined` was read and when the last `member-joined` it caused was read
/// (all taken on the event loop).
struct JoinTimes: Sendable {
    var sent: ContinuousClock.Instant
    var joined: ContinuousClock.Instant
    /// Not before `joined`; nil when not waited for, or when the wait gave up.
    var settled: ContinuousClock.Instant?
    /// `joined`'s `memberEvents`: whether pttd tells this member of later joins.
    var memberEvents: Bool?
}

/// The last handler of a join-bench member's pipeline (after the TLS handler, if any, and `ControlFrameSplitter`):
/// classifies each frame (`InboundFrame`), lets `JoinMemberState` decide, and runs the action. Event loop only.
final class JoinMemberHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private var state = JoinMemberState()
    private let tally: MemberJoinedTally
    private var welcome: EventLoopPromise<Void>?
    private var welcomeTimer: Scheduled<Void>?
    private var pendingJoin:
        (sent: ContinuousClock.Instant, promise: EventLoopPromise<JoinTimes>, timer: Scheduled<Void>)?
    private var context: ChannelHandlerContext?

    init(tally: MemberJoinedTally, welcome: EventLoopPromise<Void>) {
        self.tally = tally
        self.welcome = welcome
    }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }
    func handlerRemoved(context: ChannelHandlerContext) { self.context = nil }

    /// Writes `hello` (encoded once by the caller) and fails the welcome wait after `timeout`.
    func sendHello(_ frame: ByteBuffer, timeout: TimeAmount) {
        guard let context else { return fail("the connection closed before hello") }
        welcomeTimer = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) { [self] in
            run(state.closed("no welcome within \(timeout.nanoseconds / 1_000_000) ms"))
        }
        context.writeAndFlush(wrapOutboundOut(frame), promise: nil)
    }

    /// Writes a `join` whose id is `re` (encoded once by the caller, shared by every member) and succeeds when its
    /// `joined` is read.
    func sendJoin(_ frame: ByteBuffer, re: Int, timeout: TimeAmount) -> EventLoopFuture<JoinTimes> {
        let eventLoop = tally.eventLoop
        guard let context else { return eventLoop.makeFailedFuture(BenchError("the connection is closed")) }
        if let refusal = state.joinSent(re: re) { return eventLoop.makeFailedFuture(BenchError(refusal)) }
        let promise = eventLoop.makePromise(of: JoinTimes.self)
        let timer = eventLoop.assumeIsolated().scheduleTask(in: timeout) { [self] in
            run(state.closed("no joined within \(timeout.nanoseconds / 1_000_000) ms"))
        }
        pendingJoin = (.now, promise, timer)
        context.writeAndFlush(wrapOutboundOut(frame), promise: nil)
        return promise.futureResult
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame: InboundFrame
        do {
            frame = try InboundFrame.classify(unwrapInboundIn(data), countedChannel: tally.channelToken)
        } catch {
            return run(state.closed("\(error)"))
        }
        run(state.received(frame))
    }

    func channelInactive(context: ChannelHandlerContext) {
        run(state.closed("pttd closed the connection"))
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        // TLS failures (a certificate that is not the pinned one) arrive here.
        run(state.closed("\(error)"))
    }

    private func run(_ action: JoinMemberState.Action) {
        switch action {
        case .none:
            break
        case .countMemberJoined:
            tally.record()
        case .acknowledgeHeartbeat(let seq):
            guard let context, let frame = try? ControlFrame(.heartbeatAck(HeartbeatAck(seq: seq))) else { return }
            context.writeAndFlush(wrapOutboundOut(frame.bytes), promise: nil)
        case .welcomed:
            welcomeTimer?.cancel()
            welcome?.succeed()
            welcome = nil
        case .joined(let memberEvents):
            guard let pending = pendingJoin else { return }
            pendingJoin = nil
            pending.timer.cancel()
            pending.promise.succeed(
                JoinTimes(sent: pending.sent, joined: .now, settled: nil, memberEvents: memberEvents))
        case .fail(let reason):
            fail(reason)
        }
    }

    private func fail(_ reason: String) {
        welcomeTimer?.cancel()
        welcome?.fail(BenchError(reason))
        welcome = nil
        if let pending = pendingJoin {
            pendingJoin = nil
            pending.timer.cancel()
            pending.promise.fail(BenchError(reason))
        }
        context?.close(promise: nil)
    }
}
#endif
