import NIOConcurrencyHelpers
import NIOCore
import NIOSSL
import Synchronization

/// A listener's open connections (the control and the web listener each have one), so that a shutdown closes them
/// all within a bound.
///
/// At shutdown the plane has already sent every session its `error` (`shutting-down`) and closed it; with TLS that
/// close then waits for the peer's `close_notify` for up to `limits.closeGraceMs` (2 s), which a peer does not always
/// send (a frozen tab, a phone asleep, a client that stopped reading) and which nobody needs once the daemon is
/// stopping. ``close(grace:on:)`` closes what the plane does not (a page load, say), waits `grace` for the
/// connections to finish by themselves, then cuts the rest off below TLS.
final class OpenConnections: Sendable {
    /// One accepted connection, and whether the plane closes it at shutdown (a session: every control connection,
    /// and a web connection once it became a WebSocket).
    final class Connection: Sendable {
        let channel: Channel
        let closedByPlane: Synchronization.Atomic<Bool>

        init(channel: Channel, closedByPlane: Bool) {
            self.channel = channel
            self.closedByPlane = Synchronization.Atomic(closedByPlane)
        }
    }

    private let open = NIOLockedValueBox<[ObjectIdentifier: Connection]>([:])

    /// Tracks `channel` until it closes.
    @discardableResult
    func opened(_ channel: Channel, closedByPlane: Bool = false) -> Connection {
        let connection = Connection(channel: channel, closedByPlane: closedByPlane)
        let key = ObjectIdentifier(channel)
        open.withLockedValue { $0[key] = connection }
        channel.closeFuture.whenComplete { [open] _ in _ = open.withLockedValue { $0.removeValue(forKey: key) } }
        return connection
    }

    var count: Int { open.withLockedValue { $0.count } }

    /// What ``close(grace:on:)`` found: how many connections were open, and how many it had to cut off.
    struct Closed {
        var count = 0
        var cutOff = 0
    }

    /// Closes every connection: those the plane does not close at once, then, after
    /// `grace`, whatever is still open without waiting for TLS's `close_notify`. Returns once all are closed.
    func close(grace: TimeAmount, on eventLoop: EventLoop) async -> Closed {
        let connections = open.withLockedValue { Array($0.values) }
        guard !connections.isEmpty else { return Closed() }
        let cutOffCount = Atomic<Int>(0)
        for connection in connections where !connection.closedByPlane.load(ordering: .relaxed) {
            connection.channel.close(promise: nil)
        }
        let all = EventLoopFuture.andAllComplete(connections.map(\.channel.closeFuture), on: eventLoop)
        let cutOff = eventLoop.scheduleTask(in: grace) {
            for connection in connections where connection.channel.isActive {
                cutOffCount.add(1, ordering: .relaxed)
                Self.cutOff(connection.channel)
            }
        }
        try? await all.get()
        cutOff.cancel()
        return Closed(count: connections.count, cutOff: cutOffCount.load(ordering: .relaxed))
    }

    /// Closes the socket under the TLS handler (a close from the TLS handler's own context goes to the handlers
    /// in front of it, the socket), so it does not wait for the peer's `close_notify`.
    ///
    /// What is written and not yet flushed leaves first: the plane's last frame (the shutdown's `error`) may have
    /// reached the connection's loop just before this, with its flush queued behind it, and a close fails unflushed
    /// writes.
    private static func cutOff(_ channel: Channel) {
        channel.eventLoop.execute {
            channel.flush()
            if let tls = try? channel.pipeline.syncOperations.context(handlerType: NIOSSLServerHandler.self) {
                tls.close(promise: nil)
            } else {
                channel.close(promise: nil)
            }
        }
    }
}
