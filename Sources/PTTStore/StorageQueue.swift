import NIOCore
import NIOPosix

/// A ``Storage`` used without waiting: every call runs on a thread of the queue's own, one after another, and answers
/// with a future. The control plane hands its writes over here and goes on with floors, heartbeats and presence
/// while a disk syncs or a database answers; it applies a change once its future says it is stored.
///
/// The calls keep their order: a call made after another runs after it. The thread does nothing else, so a slow
/// disk or an unreachable database delays only the calls queued behind it (each bounded by the storage's own
/// timeout: ``PostgresStore/timeout``, SQLite's busy timeout).
public final class StorageQueue: Sendable {
    /// The storage the calls run against.
    public let store: any Storage
    /// The queue's own thread (nil when it runs on a loop it was given).
    private let group: MultiThreadedEventLoopGroup?
    /// The queue's thread: futures from ``run(_:)`` complete there (hop to your own loop to use them).
    public let eventLoop: EventLoop

    /// A queue of calls to `store`, on a thread of its own; or, given `eventLoop`, on that loop (an
    /// `EmbeddedEventLoop` that a test or a fuzzer runs by hand, where a thread of its own would answer at a time
    /// the test does not control).
    public init(_ store: any Storage, on eventLoop: EventLoop? = nil) {
        self.store = store
        if let eventLoop {
            group = nil
            self.eventLoop = eventLoop
        } else {
            let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
            self.group = group
            self.eventLoop = group.next()
        }
    }

    /// Runs `call` on the queue's thread after every call queued before it; its result or error completes the
    /// future (on ``eventLoop``).
    public func run<T: Sendable>(_ call: @escaping @Sendable (any Storage) throws -> T) -> EventLoopFuture<T> {
        let store = store
        return eventLoop.submit { try call(store) }
    }

    /// What went wrong with a call, in words for a client or an operator.
    public func describe(_ error: any Error) -> String { store.describe(error) }

    /// Runs what is queued, then stops the thread.
    public func shutdown() async {
        try? await group?.shutdownGracefully()
    }
}
