import NIOConcurrencyHelpers
import NIOCore

/// Bounds the control connections that are accepted but have not yet completed `hello` (TLS handshake
/// included). At the bound the listener stops accepting: further connections wait in the kernel's
/// backlog instead of all starting their handshakes at once, so in a reconnect storm each accepted
/// connection is served well within its hello deadline and established sessions keep their share of
/// the CPU. A connection leaves the gate when it authenticates or closes.
///
/// The bound is exact: a place is taken under the gate's lock for each connection as it is accepted, whatever
/// event loop frees places. One read of the listener accepts several connections at once (up to its
/// `maxMessagesPerRead`); those accepted past the bound are held, not yet handed to their event loop (they have no
/// pipeline, and their hello deadline has not started), and go on in order as places free.
final class HelloGate: Sendable {
    let limit: Int
    private struct State {
        var pending: Set<ObjectIdentifier> = []
        /// The listener asked to read while the gate was full: it is read again when a place frees.
        var readWaiting = false
        var listener: (any NIOCore.Channel)?
        /// Accepted past the bound, oldest first.
        var held = CircularBuffer<any NIOCore.Channel>()
    }
    private let state = NIOLockedValueBox(State())

    init(limit: Int) { self.limit = max(1, limit) }

    /// A connection was accepted: true if it took a place (it counts until it authenticates or closes), false if it
    /// is held until one frees.
    fileprivate func accepted(_ child: any NIOCore.Channel) -> Bool {
        let admitted = state.withLockedValue { state in
            guard state.held.isEmpty, state.pending.count < limit else {
                state.held.append(child)
                return false
            }
            state.pending.insert(ObjectIdentifier(child))
            return true
        }
        if admitted { watch(child) }
        return admitted
    }

    /// Held connections that now have a place (each takes it here), oldest first.
    fileprivate func release() -> [any NIOCore.Channel] {
        let released = state.withLockedValue { state in
            var released: [any NIOCore.Channel] = []
            while state.pending.count < limit, let child = state.held.popFirst() {
                state.pending.insert(ObjectIdentifier(child))
                released.append(child)
            }
            return released
        }
        released.forEach(watch)
        return released
    }

    private func watch(_ child: any NIOCore.Channel) {
        let id = ObjectIdentifier(child)
        child.closeFuture.whenComplete { [self] _ in left(id) }
    }

    /// The connection authenticated (or closed): if connections are held or the listener is waiting, the
    /// listener's loop is told a place is free.
    func left(_ id: ObjectIdentifier) {
        let listener: (any NIOCore.Channel)? = state.withLockedValue { state in
            guard state.pending.remove(id) != nil, state.readWaiting || !state.held.isEmpty,
                state.pending.count < limit
            else { return nil }
            return state.listener
        }
        listener?.pipeline.fireUserInboundEventTriggered(PlaceFreed())
    }

    /// Whether the listener may accept now; if not, it is read again when a place frees.
    fileprivate func mayAccept(listener: any NIOCore.Channel) -> Bool {
        state.withLockedValue { state in
            state.listener = listener
            guard state.held.isEmpty, state.pending.count < limit else {
                state.readWaiting = true
                return false
            }
            state.readWaiting = false
            return true
        }
    }

    /// Whether a read the listener asked for while the gate was full may go ahead now.
    fileprivate func mayResumeReading() -> Bool {
        state.withLockedValue { state in
            guard state.readWaiting, state.held.isEmpty, state.pending.count < limit else { return false }
            state.readWaiting = false
            return true
        }
    }

    /// Forgets the listener when it closes (no cycle through the closure); returns the connections still held.
    fileprivate func listenerClosed() -> [any NIOCore.Channel] {
        state.withLockedValue { state in
            state.listener = nil
            defer { state.held.removeAll() }
            return Array(state.held)
        }
    }

    /// Sent through the listener's pipeline when a place frees.
    fileprivate struct PlaceFreed: Sendable {}
}

/// In the listening channel's pipeline, before NIO's acceptor: counts accepted connections into the
/// ``HelloGate``, holds those past its bound, and holds the listener's reads while the gate is full.
final class HelloGateHandler: ChannelDuplexHandler, Sendable {
    typealias InboundIn = any NIOCore.Channel
    typealias InboundOut = any NIOCore.Channel
    typealias OutboundIn = Never

    private let gate: HelloGate

    init(gate: HelloGate) { self.gate = gate }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if gate.accepted(unwrapInboundIn(data)) { context.fireChannelRead(data) }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard event is HelloGate.PlaceFreed else { return context.fireUserInboundEventTriggered(event) }
        for child in gate.release() { context.fireChannelRead(wrapInboundOut(child)) }
        if gate.mayResumeReading() { context.read() }
    }

    func read(context: ChannelHandlerContext) {
        if gate.mayAccept(listener: context.channel) { context.read() }
    }

    func channelInactive(context: ChannelHandlerContext) {
        for child in gate.listenerClosed() { child.close(promise: nil) }
        context.fireChannelInactive()
    }
}
