import NIOConcurrencyHelpers
import NIOCore
import NIOTLS

/// How long each step of making a control connection took: what a woken app waits for before it can join.
public struct ConnectTimings: Sendable, Equatable {
    /// From the start to the TCP connection being up.
    public var tcp: Duration
    /// From the TCP connection to the end of the TLS handshake (zero without TLS).
    public var tls: Duration
    /// From the end of the handshake (or the TCP connection) to `welcome`.
    public var hello: Duration

    /// All of it.
    public var total: Duration { tcp + tls + hello }

    /// Timings of these steps.
    public init(tcp: Duration, tls: Duration, hello: Duration) {
        self.tcp = tcp
        self.tls = tls
        self.hello = hello
    }
}

/// Notes the instants of a connection's steps (monotonic nanoseconds): TCP up, TLS done.
final class ConnectClock: ChannelInboundHandler, Sendable {
    typealias InboundIn = NIOAny

    private let instants = NIOLockedValueBox<(start: UInt64, tcp: UInt64?, tls: UInt64?)>((0, nil, nil))

    init(start: UInt64) { instants.withLockedValue { $0.start = start } }

    func channelActive(context: ChannelHandlerContext) {
        instants.withLockedValue { $0.tcp = $0.tcp ?? Self.now() }
        context.fireChannelActive()
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { instants.withLockedValue { $0.tcp = $0.tcp ?? Self.now() } }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case TLSUserEvent.handshakeCompleted = event { instants.withLockedValue { $0.tls = Self.now() } }
        context.fireUserInboundEventTriggered(event)
    }

    /// The steps, with `welcome` arriving at `welcomed`.
    func timings(welcomed: UInt64) -> ConnectTimings {
        let (start, tcp, tls) = instants.withLockedValue { $0 }
        let tcpDone = tcp ?? start
        let tlsDone = tls ?? tcpDone
        return ConnectTimings(
            tcp: .nanoseconds(Int64(tcpDone &- start)), tls: .nanoseconds(Int64(tlsDone &- tcpDone)),
            hello: .nanoseconds(Int64(welcomed &- tlsDone)))
    }

    static func now() -> UInt64 { NIODeadline.now().uptimeNanoseconds }
}
