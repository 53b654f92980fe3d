import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import PostgresNIO

/// The one connection a ``PostgresStore`` carries its calls on, one call (one transaction) at a time.
///
/// The connection runs on an event loop of its own; a lock keeps one call on it at a time, as ``SQLiteStore``'s
/// queue does. The calling thread waits for the answer, never longer than `timeout`: then the connection is dropped
/// and the call throws. A dropped or failed connection is opened again by the next call.
final class PostgresSerialConnection: @unchecked Sendable {
    // @unchecked: `connection` and `isClosed` are touched only with `lock` held.
    /// Where the database is.
    let location: PostgresLocation
    /// The longest a call waits for the database.
    let timeout: TimeAmount
    let logger: Logger
    private let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    private let lock = NIOLock()
    private var connection: PostgresConnection?
    private var isClosed = false

    /// A connection to `location`, opened by the first call.
    init(location: PostgresLocation, timeout: TimeAmount, logger: Logger) {
        self.location = location
        self.timeout = timeout
        self.logger = logger
    }

    /// Closes the connection and stops its thread; calls after this throw.
    func close() {
        let closing: PostgresConnection? = lock.withLock {
            isClosed = true
            defer { connection = nil }
            return connection
        }
        if let closing { _ = try? wait(closing.close(), connection: nil) }
        try? group.syncShutdownGracefully()
    }

    /// Runs `body` with the connection to itself: no other call runs meanwhile.
    func serially<T>(_ body: (PostgresSession) throws -> T) throws -> T {
        try lock.withLock {
            guard !isClosed else { throw PostgresStoreError.closed }
            let open: PostgresConnection
            if let connection, !connection.isClosed {
                open = connection
            } else {
                connection = nil
                let connecting = PostgresConnection.connect(
                    on: group.next(), configuration: try location.configuration(), id: 1, logger: logger)
                do {
                    open = try wait(connecting, connection: nil)
                } catch {
                    // A connection that arrives after the wait gave up is nobody's: it is closed as it comes (an
                    // unclosed one stops a debug build when it goes).
                    connecting.whenSuccess { late in let _: EventLoopFuture<Void> = late.close() }
                    throw PostgresStoreError.connectionFailed(error, location)
                }
                connection = open
            }
            return try body(PostgresSession(serial: self, connection: open))
        }
    }

    /// Runs `body` in one transaction: committed if it returns, rolled back if it throws.
    func transaction<T>(_ body: (PostgresSession) throws -> T) throws -> T {
        try serially { session in
            try session.run("BEGIN")
            do {
                let result = try body(session)
                try session.run("COMMIT")
                return result
            } catch {
                rollBack(after: error, on: session)
                throw error
            }
        }
    }

    /// Runs `statements` in one transaction: BEGIN and the statements are sent together without waiting for each
    /// answer (one round trip for the batch), then COMMIT only once every statement succeeded. A failed statement
    /// rolls the whole batch back and its error is thrown. A batch that times out is never committed: its COMMIT
    /// was not sent, and the dropped connection aborts it (PostgreSQL could otherwise run a COMMIT sent ahead once
    /// a lock it waited for is free, after the caller was told it failed).
    func pipelinedTransaction(_ statements: [PostgresQuery]) throws {
        guard !statements.isEmpty else { return }
        try serially { session in
            let connection = session.connection
            let futures = (["BEGIN"] + statements).map { connection.query($0, logger: logger) }
            let results = try wait(
                EventLoopFuture.whenAllComplete(futures, on: connection.eventLoop), connection: connection)
            for result in results {
                if case .failure(let error) = result {
                    let failure = PostgresFailure.wrapping(error)
                    rollBack(after: failure, on: session)
                    throw failure
                }
            }
            try session.run("COMMIT")
        }
    }

    /// Ends a failed transaction: ROLLBACK on a connection that lives. A connection the failure ended (the server
    /// terminated the session, the socket closed) is dropped instead, and the next call opens another: a ROLLBACK
    /// sent on it would wait the whole ``timeout`` for an answer that never comes, and the server has aborted the
    /// transaction with the session anyway. One a timeout dropped already is left alone, for the same reason.
    /// Called inside ``serially(_:)``, with the lock held.
    private func rollBack(after error: any Error, on session: PostgresSession) {
        guard connection === session.connection else { return }
        if (error as? PostgresFailure)?.endsConnection == true || session.connection.isClosed {
            return drop(session.connection)
        }
        _ = try? session.run("ROLLBACK")
    }

    /// Forgets `dropped` at once, not when its close completes (the next call must not find it still open), and
    /// closes it, holding it until the close completes (a connection released before it is closed stops a debug
    /// build). Called with the lock held.
    private func drop(_ dropped: PostgresConnection) {
        if connection === dropped { connection = nil }
        dropped.close().whenComplete { _ in withExtendedLifetime(dropped) {} }
    }

    /// Waits for `future` at most `timeout`; past it the connection is dropped (its queued queries fail with it).
    ///
    /// The caller's thread blocks on a semaphore, not with `EventLoopFuture.wait()`, which NIO refuses on any event
    /// loop thread: the plane and the recorder call from theirs. That is safe here because the future completes on
    /// this connection's own event loop, which never calls the store.
    func wait<T: Sendable>(_ future: EventLoopFuture<T>, connection: PostgresConnection?) throws -> T {
        precondition(!future.eventLoop.inEventLoop, "a PostgresStore call on its own event loop would never end")
        let timeout = self.timeout
        let done = DispatchSemaphore(value: 0)
        let outcome = NIOLockedValueBox<Result<T, any Error>?>(nil)
        let timer = future.eventLoop.scheduleTask(in: timeout) {
            outcome.withLockedValue { if $0 == nil { $0 = .failure(PostgresStoreError.timedOut(after: timeout)) } }
            done.signal()
        }
        future.whenComplete { result in
            outcome.withLockedValue { if $0 == nil { $0 = result } }
            done.signal()
        }
        done.wait()
        timer.cancel()
        switch outcome.withLockedValue({ $0 })! {
        case .success(let value): return value
        case .failure(let error):
            // A connection is given only by calls inside serially(_:), which hold the lock.
            if case PostgresStoreError.timedOut = error, let connection { drop(connection) }
            throw PostgresFailure.wrapping(error)
        }
    }
}
