import NIOConcurrencyHelpers
import NIOCore
import PTTProtocol

/// Routes inbound frames: answers to waiting requests, everything to the message stream.
final class Dispatcher: Sendable {
    static let welcomeID = -1

    private struct State {
        var nextID = 0
        var waiting: [Int: CheckedContinuation<ControlMessage, Error>] = [:]
        var closed = false
    }

    private let state = NIOLockedValueBox(State())
    private let continuation: AsyncStream<ControlMessage>.Continuation

    init(continuation: AsyncStream<ControlMessage>.Continuation) { self.continuation = continuation }

    func nextID() -> Int {
        state.withLockedValue {
            $0.nextID += 1
            return $0.nextID
        }
    }

    /// Registers a waiter for `id`, runs `send`, and waits for the answer or the timeout.
    func awaitReply(
        id: Int, on channel: Channel, timeout: Duration, what: String, send: () -> Void
    ) async throws -> ControlMessage {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<ControlMessage, Error>) in
            let closed = state.withLockedValue { state -> Bool in
                if state.closed { return true }
                state.waiting[id] = continuation
                return false
            }
            if closed { return continuation.resume(throwing: ControlClientError.connectionClosed) }
            channel.eventLoop.scheduleTask(in: .nanoseconds(timeout.nanosecondsClamped)) { [self] in
                state.withLockedValue { $0.waiting.removeValue(forKey: id) }?.resume(
                    throwing: ControlClientError.timedOut(what))
            }
            send()
        }
    }

    func received(_ message: ControlMessage) {
        var id = message.re
        if case .welcome = message { id = Self.welcomeID }
        if case .error(let error) = message, error.re == nil,
            state.withLockedValue({ $0.waiting[Self.welcomeID] != nil })
        {
            // An error with no request id before welcome answers the hello.
            id = Self.welcomeID
        }
        if let id, let waiter = state.withLockedValue({ $0.waiting.removeValue(forKey: id) }) {
            // The caller of request() gets the answer; the stream carries everything else.
            waiter.resume(returning: message)
            return
        }
        if case .welcome = message { return }
        continuation.yield(message)
    }

    func closed() {
        let waiters = state.withLockedValue { state -> [CheckedContinuation<ControlMessage, Error>] in
            state.closed = true
            defer { state.waiting.removeAll() }
            return Array(state.waiting.values)
        }
        for waiter in waiters { waiter.resume(throwing: ControlClientError.connectionClosed) }
        continuation.finish()
    }
}

/// The last handler of a client pipeline: acknowledges heartbeats and passes frames to the ``Dispatcher``.
final class ClientInboundHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = ControlMessage
    typealias OutboundOut = ControlMessage

    private let dispatcher: Dispatcher
    private let acknowledgeHeartbeats: Bool

    init(dispatcher: Dispatcher, acknowledgeHeartbeats: Bool) {
        self.dispatcher = dispatcher
        self.acknowledgeHeartbeats = acknowledgeHeartbeats
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let message = unwrapInboundIn(data)
        if acknowledgeHeartbeats, case .heartbeat(let beat) = message {
            context.writeAndFlush(wrapOutboundOut(.heartbeatAck(HeartbeatAck(seq: beat.seq))), promise: nil)
        }
        dispatcher.received(message)
    }

    func channelInactive(context: ChannelHandlerContext) {
        dispatcher.closed()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        context.close(promise: nil)
    }
}
