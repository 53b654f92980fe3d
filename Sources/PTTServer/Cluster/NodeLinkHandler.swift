import Logging
import NIOCore
import PTTProtocol

/// One node link's connection, after TLS: the hello each way, then messages to ``NodeLinks`` on the plane's loop.
///
/// Every state has a deadline: the peer's hello must come within ``helloTimeout`` of the connection, and then
/// something (a message or a heartbeat) at least every ``silenceLimit``; a link whose peer stops reading is closed
/// once its unsent bytes pass the channel's high water mark (``NodeLinks/writeBufferLimit``).
final class NodeLinkHandler: ChannelDuplexHandler, @unchecked Sendable {
    // @unchecked: used only on its channel's event loop; `links` is called through the plane's loop.
    typealias InboundIn = NodeMessage
    typealias OutboundIn = NodeMessage
    typealias OutboundOut = NodeMessage

    static let helloTimeout = TimeAmount.seconds(5)
    static let heartbeatInterval = TimeAmount.seconds(1)
    static let silenceLimit = TimeAmount.seconds(4)

    /// Who opened the link: this node (to `peer`, with the pair's key) or the other one.
    enum Role {
        case opened(peer: String, hello: NodeHello)
        case accepted(fingerprint: @Sendable () -> String?)
    }

    private let role: Role
    private let links: NodeLinks
    private let logger: Logger
    private var peer: String?
    private var up = false
    private var lastHeard = NIODeadline.now()
    private var lastSent = NIODeadline.now()
    private var ticker: RepeatedTask?

    init(role: Role, links: NodeLinks, logger: Logger) {
        self.role = role
        self.links = links
        self.logger = logger
    }

    func channelActive(context: ChannelHandlerContext) {
        let opened = NIODeadline.now()
        if case .opened(_, let hello) = role { write(context, .hello(hello)) }
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        ticker = context.eventLoop.scheduleRepeatedTask(
            initialDelay: Self.heartbeatInterval, delay: Self.heartbeatInterval
        ) { _ in
            let (handler, context) = loopBound.value
            handler.tick(context, opened: opened)
        }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        ticker?.cancel()
        ticker = nil
        if up, let peer { links.linkClosed(peer, channel: context.channel) }
        context.fireChannelInactive()
    }

    private func tick(_ context: ChannelHandlerContext, opened: NIODeadline) {
        let now = NIODeadline.now()
        if !up, now - opened > Self.helloTimeout {
            return close(context, "no hello within \(Self.helloTimeout.nanoseconds / 1_000_000_000) s")
        }
        if up, now - lastHeard > Self.silenceLimit {
            return close(context, "nothing heard for \(Self.silenceLimit.nanoseconds / 1_000_000_000) s")
        }
        if up, now - lastSent >= Self.heartbeatInterval { write(context, .heartbeat) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let message = unwrapInboundIn(data)
        lastHeard = .now()
        guard up else { return hello(context, message) }
        if case .heartbeat = message { return }
        if case .hello = message { return close(context, "a second hello") }
        links.received(message, from: peer!)
    }

    private func hello(_ context: ChannelHandlerContext, _ message: NodeMessage) {
        guard case .hello(let hello) = message else { return close(context, "'\(message.type)' before hello") }
        guard hello.to == links.name else { return close(context, "hello meant for node '\(hello.to)'") }
        switch role {
        case .opened(let peer, _):
            guard hello.node == peer else { return close(context, "node '\(hello.node)' answered for '\(peer)'") }
            self.peer = peer
            up = true
            links.linkUp(peer, key: nil, channel: context.channel)
        case .accepted(let fingerprint):
            let channel = context.channel
            let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            // The certificate must be the one the node registered in the database at its start.
            links.checkAccepted(hello, fingerprint: fingerprint(), channel: channel) { refusal in
                let (handler, context) = loopBound.value
                if let refusal { return handler.close(context, refusal) }
                handler.peer = hello.node
                handler.up = true
                // The answer goes out before the plane learns of the link, and so before anything it sends.
                handler.write(context, .hello(NodeHello(node: handler.links.name, to: hello.node)))
                handler.links.accepted(hello, channel: context.channel)
            }
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        lastSent = .now()
        context.write(data, promise: promise)
    }

    private func write(_ context: ChannelHandlerContext, _ message: NodeMessage) {
        lastSent = .now()
        context.writeAndFlush(wrapOutboundOut(message), promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        close(context, "\(error)")
    }

    private func close(_ context: ChannelHandlerContext, _ why: String) {
        guard context.channel.isActive else { return }
        logger.warning(
            "node link closed", metadata: ["peer": "\(peer ?? "?")", "reason": "\(why)", "node": "\(links.name)"])
        links.metrics.linkFailures.increment()
        context.close(promise: nil)
    }
}
