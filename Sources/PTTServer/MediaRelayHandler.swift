import NIOCore

/// The UDP socket's handler: hands each datagram to the ``MediaRelay`` and flushes what it produced
/// once per read batch.
final class MediaRelayHandler: ChannelInboundHandler, @unchecked Sendable {
    // @unchecked: used only on the relay's event loop.
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    typealias OutboundOut = AddressedEnvelope<ByteBuffer>

    private let relay: MediaRelay
    private var pending = PendingWrites()

    init(relay: MediaRelay) { self.relay = relay }

    func handlerAdded(context: ChannelHandlerContext) {
        relay.handlerContext = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        relay.handlerContext = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        relay.receive(unwrapInboundIn(data), into: &pending, allocator: context.channel.allocator)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        pending.flush(context)
        context.fireChannelReadComplete()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        // A UDP error (e.g. ICMP port unreachable reported on a later send) concerns one peer, never the relay.
        relay.metrics.mediaDropped(reason: "socket-error")
    }
}
