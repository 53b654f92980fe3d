import NIOCore

/// The UDP socket's handler: hands each datagram to the ``MediaRelay`` and owns what the relay decides
/// to send. Every copy of a read batch is built in place and the batch is sent once it is complete (or
/// sooner, when ``maxPendingWrites`` copies wait).
///
/// With the socket's descriptor (the relay opens its socket itself), copies go out through a
/// ``DatagramBatch`` (`sendmmsg`, no NIO write per copy). Without one (an `EmbeddedChannel` in tests),
/// or while datagrams that found the kernel's send buffer full are still queued in NIO, they go through
/// NIO's write path, in order.
final class MediaRelayHandler: ChannelInboundHandler, @unchecked Sendable {
    // @unchecked: used only on the relay's event loop.
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    typealias OutboundOut = AddressedEnvelope<ByteBuffer>

    /// Copies written before the handler flushes, even inside a read batch: a read batch never piles up
    /// unbounded work before its first send.
    static let maxPendingWrites = DatagramBatch.maxDatagrams

    private let relay: MediaRelay
    private var context: ChannelHandlerContext?
    private var pending = PendingWrites()
    private let batch: DatagramBatch?
    /// Groups of datagrams written through NIO whose last write has not completed: while any is
    /// outstanding, new copies queue behind them in NIO rather than overtake them.
    private var outstandingNIOWrites = 0

    /// - Parameter descriptor: the UDP socket's descriptor, to send with `sendmmsg` directly; nil: through NIO.
    init(relay: MediaRelay, descriptor: Int32? = nil, send: DatagramBatch.Send? = nil) {
        self.relay = relay
        self.batch = descriptor.map { fd in
            send.map { DatagramBatch(descriptor: fd, send: $0) } ?? DatagramBatch(descriptor: fd)
        }
        batch?.dropped = { [unowned relay] _ in relay.metrics.dropped(.socketError) }
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        relay.handler = self
        batch?.overflow = { [unowned self] bytes, address in self.overflow(bytes, to: address) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        batch?.overflow = { _, _ in }
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

    /// Makes room for `copies` datagrams of at most `maxLength` bytes (one allocation for a whole fan-out
    /// on NIO's path; nothing to do for a ``DatagramBatch``, whose arena is allocated once).
    func reserve(copies: Int, maxLength: Int) {
        guard !sendsDirectly, pending.buffer == nil, let context else { return }
        let count = min(max(copies, 2), Self.maxPendingWrites)
        pending.buffer = context.channel.allocator.buffer(capacity: count * (maxLength + 16))
        pending.sizeHint = count * (maxLength + 16)
    }

    private var sendsDirectly: Bool { batch != nil && outstandingNIOWrites == 0 }

    /// Writes one datagram for `listener` (to its learned address) built in place by `build` (which returns
    /// its length, 0 to send nothing). Returns whether a datagram was queued.
    func write(to listener: RelayMember, maxLength: Int, _ build: (UnsafeMutableRawBufferPointer) -> Int) -> Bool {
        guard let context else { return false }
        if let batch, outstandingNIOWrites == 0 {
            if !batch.hasRoom(for: maxLength) { flush() }
            if batch.count == 0, !batch.hasRoom(for: maxLength) { return false }  // larger than the whole arena
            return batch.append(to: listener.rawAddress, maxLength: maxLength, build)
        }
        guard let address = listener.address else { return false }
        if pending.entries.count >= Self.maxPendingWrites { flushNIO(context) }
        if pending.buffer == nil {
            pending.buffer = context.channel.allocator.buffer(capacity: max(pending.sizeHint, maxLength))
        }
        let offset = pending.buffer!.writerIndex
        let written = pending.buffer!.writeWithUnsafeMutableBytes(minimumWritableBytes: maxLength) { out in
            build(UnsafeMutableRawBufferPointer(rebasing: out[0..<maxLength]))
        }
        guard written > 0 else { return false }
        pending.entries.append((offset, written, address))
        return true
    }

    /// Sends everything queued (nothing once the handler has left the pipeline: NIO then owns, and may have
    /// closed, the descriptor).
    func flush() {
        guard let context else { return }
        batch?.flush()
        flushNIO(context)
    }

    /// Sends what waits on NIO's path; with a ``DatagramBatch``, tracks it until NIO has written it.
    private func flushNIO(_ context: ChannelHandlerContext) {
        guard !pending.entries.isEmpty else { return }
        guard batch != nil else { return pending.flush(context, lastWritten: nil) }
        outstandingNIOWrites += 1
        let written = context.eventLoop.makePromise(of: Void.self)
        written.futureResult.whenComplete { [weak self] _ in self?.outstandingNIOWrites -= 1 }
        pending.flush(context, lastWritten: written)
    }

    /// A datagram the kernel's send buffer had no room for: queued in NIO, which writes it when the socket
    /// can take it; later copies queue behind it.
    private func overflow(_ bytes: UnsafeRawBufferPointer, to raw: RawSocketAddress) {
        guard let context, let address = raw.socketAddress else { return relay.metrics.dropped(.socketError) }
        if pending.buffer == nil {
            pending.buffer = context.channel.allocator.buffer(capacity: max(pending.sizeHint, bytes.count))
        }
        let offset = pending.buffer!.writerIndex
        pending.buffer!.writeBytes(bytes)
        pending.entries.append((offset, bytes.count, address))
        relay.metrics.sendBufferFull.increment()
        if pending.entries.count >= Self.maxPendingWrites { flushNIO(context) }
    }
}

/// Datagrams produced during one read batch for NIO's write path, written and flushed together.
///
/// Every listener's copy is written into one buffer; the slices are taken only once the batch is complete,
/// so writing never copies earlier copies (a slice shares the buffer's storage).
struct PendingWrites {
    var buffer: ByteBuffer?
    var entries: [(offset: Int, length: Int, to: SocketAddress)] = []
    /// The capacity to give the next buffer.
    var sizeHint = 0

    /// Writes and flushes every entry; `lastWritten` completes when NIO has written the last one (and so
    /// all of them: a channel completes writes in order).
    mutating func flush(_ context: ChannelHandlerContext, lastWritten: EventLoopPromise<Void>?) {
        guard let buffer, !entries.isEmpty else {
            lastWritten?.succeed()
            return
        }
        for (index, entry) in entries.enumerated() {
            let slice = buffer.getSlice(at: entry.offset, length: entry.length)!
            context.write(
                NIOAny(AddressedEnvelope(remoteAddress: entry.to, data: slice)),
                promise: index == entries.count - 1 ? lastWritten : nil)
        }
        context.flush()
        entries.removeAll(keepingCapacity: true)
        self.buffer = nil
    }
}
