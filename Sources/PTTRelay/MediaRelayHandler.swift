import NIOCore

/// The UDP socket's handler: hands each datagram to the ``MediaRelay`` and owns what the relay decides
/// to send: every copy of a read batch goes into one buffer, flushed once per batch (one `sendmmsg`), or
/// sooner when ``maxPendingWrites`` copies are waiting.
final class MediaRelayHandler: ChannelInboundHandler, @unchecked Sendable {
    // @unchecked: used only on the relay's event loop.
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    typealias OutboundOut = AddressedEnvelope<ByteBuffer>

    /// Copies written before the handler flushes, even inside a read batch (NIO sends up to 1024 per
    /// `sendmmsg`): a read batch never piles up unbounded work before its first send.
    static let maxPendingWrites = 1024

    private let relay: MediaRelay
    private var context: ChannelHandlerContext?
    private var pending = PendingWrites()

    init(relay: MediaRelay) { self.relay = relay }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        relay.handler = self
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        if relay.handler === self { relay.handler = nil }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        relay.receive(unwrapInboundIn(data), via: self)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        flush()
        context.fireChannelReadComplete()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        // A UDP error (e.g. ICMP port unreachable reported on a later send) concerns one peer, never the relay.
        relay.metrics.dropped(.socketError)
    }

    /// Makes room for `copies` datagrams of at most `maxLength` bytes (one allocation for a whole fan-out).
    func reserve(copies: Int, maxLength: Int) {
        guard pending.buffer == nil, let context else { return }
        let count = min(max(copies, 2), Self.maxPendingWrites)
        pending.buffer = context.channel.allocator.buffer(capacity: count * (maxLength + 16))
        pending.sizeHint = count * (maxLength + 16)
    }

    /// Writes one datagram built in place by `build` (which returns its length, 0 to send nothing).
    /// Returns whether a datagram was queued.
    func write(to address: SocketAddress, maxLength: Int, _ build: (UnsafeMutableRawBufferPointer) -> Int) -> Bool {
        guard let context else { return false }
        if pending.entries.count >= Self.maxPendingWrites { pending.flush(context) }
        if pending.buffer == nil { pending.buffer = context.channel.allocator.buffer(capacity: max(pending.sizeHint, maxLength)) }
        let offset = pending.buffer!.writerIndex
        let written = pending.buffer!.writeWithUnsafeMutableBytes(minimumWritableBytes: maxLength) { out in
            build(UnsafeMutableRawBufferPointer(rebasing: out[0..<maxLength]))
        }
        guard written > 0 else { return false }
        pending.entries.append((offset, written, address))
        return true
    }

    /// Sends everything queued.
    func flush() {
        guard let context else { return }
        pending.flush(context)
    }
}

/// Datagrams produced during one read batch, written and flushed together (one `sendmmsg`).
///
/// Every listener's copy is written into one buffer; the slices are taken only once the batch is complete,
/// so writing never copies earlier copies (a slice shares the buffer's storage).
struct PendingWrites {
    var buffer: ByteBuffer?
    var entries: [(offset: Int, length: Int, to: SocketAddress)] = []
    /// The capacity to give the next buffer.
    var sizeHint = 0

    mutating func flush(_ context: ChannelHandlerContext) {
        guard let buffer, !entries.isEmpty else { return }
        for entry in entries {
            let slice = buffer.getSlice(at: entry.offset, length: entry.length)!
            context.write(NIOAny(AddressedEnvelope(remoteAddress: entry.to, data: slice)), promise: nil)
        }
        context.flush()
        entries.removeAll(keepingCapacity: true)
        self.buffer = nil
    }
}
