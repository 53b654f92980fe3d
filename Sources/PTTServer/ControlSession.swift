import NIOCore
import PTTProtocol

/// One control connection as the ``ControlPlane`` sees it: something to send frames to and to close.
///
/// Thread-safe: writes hop to the connection's event loop.
public final class ControlSession: Sendable, Hashable, CustomStringConvertible {
    public let id: UInt64
    let channel: Channel
    public let remoteAddress: String
    private let onRequestDone: @Sendable () -> Void

    init(id: UInt64, channel: Channel, onRequestDone: @escaping @Sendable () -> Void) {
        self.id = id
        self.channel = channel
        self.remoteAddress = channel.remoteAddress.map { "\($0)" } ?? "unknown"
        self.onRequestDone = onRequestDone
    }

    /// Queues a frame for this connection.
    public func send(_ message: ControlMessage) {
        channel.writeAndFlush(message, promise: nil)
    }

    /// Queues a frame and reports, from the connection's event loop, when it was written to the socket
    /// (or why it could not be).
    func send(_ message: ControlMessage, written: @escaping @Sendable (Result<Void, Error>) -> Void) {
        let promise = channel.eventLoop.makePromise(of: Void.self)
        promise.futureResult.whenComplete(written)
        channel.writeAndFlush(message, promise: promise)
    }

    /// Sends `error` (if any), then closes the connection once it is written.
    public func close(with error: ErrorFrame? = nil) {
        guard let error else {
            channel.close(promise: nil)
            return
        }
        let channel = self.channel
        channel.writeAndFlush(ControlMessage.error(error)).whenComplete { _ in channel.close(promise: nil) }
    }

    /// Tells the connection's handler that the plane has finished one of its requests (for backpressure).
    func requestDone() { onRequestDone() }

    /// Tells the connection's handler that `hello` succeeded: heartbeats start.
    func authenticated() {
        let channel = self.channel
        channel.eventLoop.execute { channel.pipeline.fireUserInboundEventTriggered(ControlSessionEvent.authenticated) }
    }

    public static func == (lhs: ControlSession, rhs: ControlSession) -> Bool { lhs.id == rhs.id }
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }
    public var description: String { "session #\(id) from \(remoteAddress)" }
}

/// Events the plane sends down a session's pipeline.
enum ControlSessionEvent: Sendable {
    case authenticated
}
