#if os(Linux)
import NIOCore
import PTTProtocol

/// One control connection of `pttbench floor-latency`: the measuring member, or one of the load's members. It is
/// connected, TLS-pinned and welcomed by `JoinMember.connect`; then its `JoinMemberHandler` is swapped for a
/// `FloorLatencyHandler`, which sends one request at a time and times its answer on the event loop.
final class FloorLatencyConnection: Sendable {
    let channel: Channel
    private let handler: NIOLoopBound<FloorLatencyHandler>

    private init(channel: Channel, handler: NIOLoopBound<FloorLatencyHandler>) {
        self.channel = channel
        self.handler = handler
    }

    /// Connects (TCP, TLS pinned to runtime.json's fingerprint unless plain), writes `hello`, waits for `welcome`.
    static func connect(
        to address: SocketAddress, security: JoinMemberSecurity, hello: ByteBuffer, eventLoop: EventLoop,
        timeout: TimeAmount
    ) async throws -> FloorLatencyConnection {
        let tally = MemberJoinedTally(eventLoop: eventLoop, channelID: "-")
        let member = try await JoinMember.connect(
            to: address, security: security, hello: hello, tally: tally, timeout: timeout)
        let channel = member.channel
        do {
            let handler = try await eventLoop.submit {
                let sync = channel.pipeline.syncOperations
                let handler = FloorLatencyHandler(eventLoop: eventLoop)
                let old = try sync.context(handlerType: JoinMemberHandler.self)
                try sync.addHandler(handler, position: .after(old.handler))
                sync.removeHandler(context: old, promise: nil)
                return NIOLoopBound(handler, eventLoop: eventLoop)
            }.get()
            return FloorLatencyConnection(channel: channel, handler: handler)
        } catch {
            await member.close()
            throw error
        }
    }

    /// Writes `frame` (a request whose id is `id`, encoded by the caller) and succeeds with its timed answer: one of
    /// `answers` (a `joined` must carry `re` = `id`); fails on one of `refusals`, an `error` with that `re`, a
    /// closed connection, or after `timeout`.
    func request(
        _ frame: ByteBuffer, id: Int, answers: Set<String>, refusals: Set<String> = [], timeout: TimeAmount
    ) -> EventLoopFuture<TimedAnswer> {
        channel.eventLoop.flatSubmit { [handler] in
            handler.value.send(frame, id: id, answers: answers, refusals: refusals, timeout: timeout)
        }
    }

    /// The heartbeats this connection has read, and whether and why it closed.
    func health() async throws -> ConnectionHealth {
        try await channel.eventLoop.submit { [handler] in handler.value.health }.get()
    }

    func close() async {
        try? await channel.close()
    }
}

/// A request's answer, with the times (NIO's monotonic clock, taken on the event loop) of the write and the read.
struct TimedAnswer: Sendable {
    var type: String
    var sent: NIODeadline
    var received: NIODeadline

    var nanoseconds: UInt64 { UInt64(max(0, received.uptimeNanoseconds - sent.uptimeNanoseconds)) }
}

/// What a connection saw of pttd's heartbeats, and how it ended.
struct ConnectionHealth: Sendable {
    var heartbeats = 0
    /// The longest time between two heartbeats (or from the swap to the first), nanoseconds.
    var longestGapNanoseconds: Int64 = 0
    /// Why the connection closed; nil while it is open.
    var closed: String?
    /// The last `error` without a pending request's `re` (a heartbeat timeout, a kick…).
    var unsolicitedError: String?
}
#endif
