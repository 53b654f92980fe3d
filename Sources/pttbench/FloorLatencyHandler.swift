#if os(Linux)
import NIOCore
import PTTProtocol

/// The last handler of a `FloorLatencyConnection` (after TLS and `ControlFrameSplitter`): one request out at a time,
/// its answer recognised by type (`InboundFrame`; a `joined` also by `re`) and timed when read; heartbeats
/// acknowledged and their gaps noted. With no request out, only heartbeats and errors are decoded. Event loop only.
final class FloorLatencyHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private struct Pending {
        var id: Int
        var answers: Set<String>
        var refusals: Set<String>
        var sent: NIODeadline
        var promise: EventLoopPromise<TimedAnswer>
        var timer: Scheduled<Void>
    }

    private let eventLoop: EventLoop
    private var context: ChannelHandlerContext?
    private var pending: Pending?
    private var lastHeartbeat = NIODeadline.now()
    private(set) var health = ConnectionHealth()

    init(eventLoop: EventLoop) { self.eventLoop = eventLoop }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        lastHeartbeat = .now()
    }

    func handlerRemoved(context: ChannelHandlerContext) { self.context = nil }

    func send(
        _ frame: ByteBuffer, id: Int, answers: Set<String>, refusals: Set<String>, timeout: TimeAmount
    ) -> EventLoopFuture<TimedAnswer> {
        guard let context else {
            return eventLoop.makeFailedFuture(FloorLatencyError.closed(health.closed ?? "the connection is closed"))
        }
        guard pending == nil else { return eventLoop.makeFailedFuture(BenchError("a request is already out")) }
        let promise = eventLoop.makePromise(of: TimedAnswer.self)
        let timer = eventLoop.assumeIsolated().scheduleTask(in: timeout) { [self] in
            finish(.failure(BenchError("no answer within \(timeout.nanoseconds / 1_000_000) ms")))
        }
        pending = Pending(
            id: id, answers: answers, refusals: refusals, sent: .now(), promise: promise, timer: timer)
        context.writeAndFlush(wrapOutboundOut(frame), promise: nil)
        return promise.futureResult
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let body = unwrapInboundIn(data)
        guard pending != nil || InboundFrame.mayMatterWithoutRequest(body) else { return }
        let frame: InboundFrame
        do {
            frame = try InboundFrame.classify(body, countedChannel: [])
        } catch {
            return closeWith("\(error)")
        }
        switch frame {
        case .heartbeat(let seq):
            let now = NIODeadline.now()
            health.heartbeats += 1
            health.longestGapNanoseconds = max(
                health.longestGapNanoseconds, (now - lastHeartbeat).nanoseconds)
            lastHeartbeat = now
            guard let ack = try? ControlFrame(.heartbeatAck(HeartbeatAck(seq: seq))) else { return }
            context.writeAndFlush(wrapOutboundOut(ack.bytes), promise: nil)
        case .joined(let re, _):
            if let pending, pending.answers.contains("joined"), re == pending.id { answer("joined") }
        case .other(let type):
            guard let pending else { return }
            if pending.answers.contains(type) {
                answer(type)
            } else if pending.refusals.contains(type) {
                finish(.failure(BenchError("answered \(type)")))
            }
        case .error(let re, let code, let message):
            if let pending, re == pending.id {
                finish(.failure(FloorLatencyError.refused(code: code, message: message)))
            } else {
                health.unsolicitedError = "\(code): \(message)"
            }
        case .welcome, .memberJoined:
            break
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        closeWith(health.unsolicitedError.map { "pttd closed the connection after \($0)" } ?? "pttd closed it")
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        closeWith("\(error)")
    }

    private func answer(_ type: String) {
        guard let pending else { return }
        finish(.success(TimedAnswer(type: type, sent: pending.sent, received: .now())))
    }

    private func finish(_ result: Result<TimedAnswer, Error>) {
        guard let pending else { return }
        self.pending = nil
        pending.timer.cancel()
        pending.promise.completeWith(result)
    }

    private func closeWith(_ reason: String) {
        if health.closed == nil { health.closed = reason }
        finish(.failure(FloorLatencyError.closed(reason)))
        context?.close(promise: nil)
    }
}

/// Why a floor-latency connection's request failed.
enum FloorLatencyError: Error, CustomStringConvertible {
    /// pttd answered the request with `error`.
    case refused(code: String, message: String)
    /// The connection closed (or was never open).
    case closed(String)

    var description: String {
        switch self {
        case .refused(let code, let message): "refused: \(code): \(message)"
        case .closed(let reason): "connection closed: \(reason)"
        }
    }
}
#endif
