import NIOConcurrencyHelpers
import NIOCore

/// Bounds the control connections that are accepted but have not yet completed `hello` (TLS handshake
/// included). At the bound the listener stops accepting: further connections wait in the kernel's
/// backlog instead of all starting their handshakes at once, so in a reconnect storm each accepted
/// connection is served well within its hello deadline and established sessions keep their share of
/// the CPU. A connection leaves the gate when it authenticates or closes.
final class HelloGate: Sendable {
    let limit: Int
    private struct State {
        var pending: Set<ObjectIdentifier> = []
        var readWaiting = false
        var listener: (any NIOCore.Channel)?
    }
    private let state = NIOLockedValueBox(State())

    init(limit: Int) { self.limit = max(1, limit) }

    /// A connection was accepted: it counts until it authenticates or closes.
    fileprivate func entered(_ child: any NIOCore.Channel) {
        let id = ObjectIdentifier(child)
        state.withLockedValue { _ = $0.pending.insert(id) }
        child.closeFuture.whenComplete { [self] _ in left(id) }
    }

    /// The connection authenticated (or closed); accepting resumes if it was paused.
    func left(_ id: ObjectIdentifier) {
        let resume: (any NIOCore.Channel)? = state.withLockedValue { state in
            guard state.pending.remove(id) != nil, state.readWaiting, state.pending.count < limit else { return nil }
            state.readWaiting = false
            return state.listener
        }
        resume?.read()
    }

    /// Whether the listener may accept now; if not, it is resumed when a connection leaves.
    fileprivate func mayAccept(listener: any NIOCore.Channel) -> Bool {
        state.withLockedValue { state in
            state.listener = listener
            guard state.pending.count >= limit else { return true }
            state.readWaiting = true
            return false
        }
    }

    /// Forgets the listener when it closes (no cycle through the closure).
    fileprivate func listenerClosed() {
        state.withLockedValue { $0.listener = nil }
    }
}

/// In the listening channel's pipeline, before NIO's acceptor: counts accepted connections into the
/// ``HelloGate`` and holds the listener's reads while the gate is full.
final class HelloGateHandler: ChannelDuplexHandler, Sendable {
    typealias InboundIn = any NIOCore.Channel
    typealias InboundOut = any NIOCore.Channel
    typealias OutboundIn = Never

    private let gate: HelloGate

    init(gate: HelloGate) { self.gate = gate }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        gate.entered(unwrapInboundIn(data))
        context.fireChannelRead(data)
    }

    func read(context: ChannelHandlerContext) {
        if gate.mayAccept(listener: context.channel) { context.read() }
    }

    func channelInactive(context: ChannelHandlerContext) {
        gate.listenerClosed()
        context.fireChannelInactive()
    }
}
