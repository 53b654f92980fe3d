import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A ``Storage`` used without waiting: every call runs on a thread of the queue's own (an `NIOThreadPool` of one
/// thread, where blocking is what threads are for: no event loop ever waits for a disk or a database), one after
/// another, and answers with a future on the caller's loop. The control plane hands its writes over here and goes
/// on with floors, heartbeats and presence while a disk syncs or a database answers; it applies a change once its
/// future says it is stored.
///
/// The calls keep their order: a call made after another runs after it. The thread does nothing else, so a slow
/// disk or an unreachable database delays only the calls queued behind it (each bounded by the storage's own
/// timeout: ``PostgresStore/timeout``, SQLite's busy timeout).
///
/// After ``shutdown()`` a call is refused at once with ``Closed``, on the answering loop: nothing is handed to a
/// thread that has stopped, and no answer waits on one.
public final class StorageQueue: Sendable {
    /// A call made after ``StorageQueue/shutdown()``.
    public struct Closed: Error, CustomStringConvertible {
        public var description: String { "the server is shutting down" }
    }

    /// Where the calls run.
    private enum Runner: Sendable {
        /// The queue's own thread.
        case thread(NIOThreadPool)
        /// A loop it was given (an `EmbeddedEventLoop` that a test or a fuzzer runs by hand, where a thread of its
        /// own would answer at a time the test does not control): calls run there, in turn.
        case loop(EventLoop)
    }

    /// The storage the calls run against.
    public let store: any Storage
    private let runner: Runner
    /// Where the futures from ``run(_:)`` complete: the caller's loop.
    public let answers: EventLoop
    /// False once ``shutdown()`` began; read and set under the lock with the hand-over, so no call is handed to a
    /// stopped thread.
    private let open = NIOLockedValueBox(true)

    /// A queue of calls to `store`, on a thread of its own, answering on `answers`; or, given `eventLoop`, on that
    /// loop.
    public init(_ store: any Storage, on eventLoop: EventLoop? = nil, answeringOn answers: EventLoop) {
        self.store = store
        self.answers = answers
        if let eventLoop {
            runner = .loop(eventLoop)
        } else {
            let pool = NIOThreadPool(numberOfThreads: 1)
            pool.start()
            runner = .thread(pool)
        }
    }

    /// Runs `call` on the queue's thread after every call queued before it; its result or error completes the
    /// future, on ``answers``. After ``shutdown()``, fails at once with ``Closed``.
    public func run<T: Sendable>(_ call: @escaping @Sendable (any Storage) throws -> T) -> EventLoopFuture<T> {
        let promise = answers.makePromise(of: T.self)
        let store = store
        let handed = open.withLockedValue { open in
            guard open else { return false }
            switch runner {
            case .thread(let pool):
                pool.submit { state in
                    guard case .active = state else { return promise.fail(Closed()) }
                    promise.completeWith(Result { try call(store) })
                }
            case .loop(let loop):
                loop.execute { promise.completeWith(Result { try call(store) }) }
            }
            return true
        }
        if !handed { promise.fail(Closed()) }
        return promise.futureResult
    }

    /// What went wrong with a call, in words for a client or an operator.
    public func describe(_ error: any Error) -> String {
        if let closed = error as? Closed { return closed.description }
        return store.describe(error)
    }

    /// Refuses new calls, runs what is queued, then stops the thread. Call it while ``answers`` still runs: the
    /// answers of the calls queued are delivered there.
    public func shutdown() async {
        open.withLockedValue { $0 = false }
        guard case .thread(let pool) = runner else { return }
        // The pool cancels what has not started when it shuts down: a last item, after every call queued, waits for
        // them to have run.
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            pool.submit { _ in done.resume() }
        }
        try? await pool.shutdownGracefully()
    }
}
