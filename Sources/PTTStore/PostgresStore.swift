import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import PostgresNIO

/// Channels, users, memberships, announcements, recordings' metadata and sign-in links in PostgreSQL, shared by
/// the nodes of a cluster (postgres-nio).
///
/// The interface is ``Storage``'s: synchronous, returning once committed. One connection, on an event loop of its
/// own, carries every call; a lock keeps one call (one transaction) on it at a time, as ``SQLiteStore``'s queue
/// does. The calling thread waits for the answer (the server's plane waits for a SQLite commit the same way),
/// never longer than `timeout`: then the connection is dropped and the call throws. A dropped or failed connection
/// is opened again by the next call. The schema is created and migrated at start, under an advisory lock, so
/// nodes starting together migrate once.
public final class PostgresStore: Storage, @unchecked Sendable {
    // @unchecked: `connection` and `isClosed` are touched only with `lock` held.
    /// Where the database is.
    public let location: PostgresLocation
    /// The longest a call waits for the database.
    public let timeout: TimeAmount
    let logger: Logger
    /// This node's name in a cluster: directory writes notify the other nodes, naming it.
    public let node: String?
    private let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    private let lock = NIOLock()
    private var connection: PostgresConnection?
    private var isClosed = false

    /// Connects to the database at `location`, then creates or migrates its schema; throws with what went wrong
    /// (``describe(_:)``) if the database cannot be reached or refuses. With `node`, every directory write tells
    /// the other nodes (LISTEN ``directoryNotifications``).
    public init(
        location: PostgresLocation, node: String? = nil, timeout: Duration = .seconds(10), logger: Logger
    )
        throws
    {
        self.location = location
        self.node = node
        self.timeout = .milliseconds(Int64(timeout / .milliseconds(1)))
        self.logger = logger
        do {
            try transaction { try Self.migrate($0) }
        } catch {
            close()
            throw error
        }
    }

    /// Closes the connection and stops its thread; calls after this throw.
    public func close() {
        let closing: PostgresConnection? = lock.withLock {
            isClosed = true
            defer { connection = nil }
            return connection
        }
        if let closing { _ = try? wait(closing.close(), connection: nil) }
        try? group.syncShutdownGracefully()
    }

    // MARK: Calls

    /// Runs `body` with the connection to itself: no other call runs meanwhile.
    func serially<T>(_ body: (PostgresSession) throws -> T) throws -> T {
        try lock.withLock {
            guard !isClosed else { throw PostgresStoreError.closed }
            let open: PostgresConnection
            if let connection, !connection.isClosed {
                open = connection
            } else {
                connection = nil
                do {
                    open = try wait(
                        PostgresConnection.connect(
                            on: group.next(), configuration: try location.configuration(), id: 1, logger: logger),
                        connection: nil)
                } catch {
                    throw Self.connectionFailed(error, location)
                }
                connection = open
            }
            return try body(PostgresSession(store: self, connection: open))
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
                _ = try? session.run("ROLLBACK")
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
                    _ = try? session.run("ROLLBACK")
                    throw PostgresFailure.wrapping(error)
                }
            }
            try session.run("COMMIT")
        }
    }

    /// Waits for `future` at most `timeout`; past it the connection is closed (its queued queries fail with it).
    ///
    /// The caller's thread blocks on a semaphore, not with `EventLoopFuture.wait()`, which NIO refuses on any event
    /// loop thread: the plane and the recorder call from theirs. That is safe here because the future completes on
    /// this store's own event loop, which never calls the store.
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
            if case PostgresStoreError.timedOut = error { let _: EventLoopFuture<Void>? = connection?.close() }
            throw PostgresFailure.wrapping(error)
        }
    }

    // MARK: Errors

    /// What a failed connection attempt to `location` says: unreachable, or refused with PostgreSQL's words (a
    /// wrong password, an unknown database or role).
    public static func connectionFailed(_ error: any Error, _ location: PostgresLocation) -> any Error {
        guard let failure = PostgresFailure.wrapping(error) as? PostgresFailure else { return error }
        if let state = failure.sqlState {
            return PostgresStoreError.refused(
                "\(location)", because: "\(failure.message ?? "no message") (SQLSTATE \(state))")
        }
        return PostgresStoreError.unreachable("\(location)", because: failure.underlying)
    }

    /// What went wrong, in words for a client or an operator: PostgreSQL's own (``PostgresFailure``), with the
    /// failures an operator must act on named as such.
    public func describe(_ error: any Error) -> String {
        let error = PostgresFailure.wrapping(error)
        if let error = error as? PostgresStoreError { return error.description }
        if let conflict = error as? StorageConflict { return conflict.description }
        guard let failure = error as? PostgresFailure else { return "\(error)" }
        switch failure.sqlState {
        case "53100": return "the database's disk is full"
        case "53200": return "the database is out of memory"
        case "57P01", "57P02", "57P03":
            return "the database is shutting down or starting (\(failure.message ?? "no message"))"
        case "25006": return "the database is read-only (a standby?)"
        case .some: return failure.description
        case nil:
            switch failure.code {
            case "connectionError", "serverClosedConnection", "uncleanShutdown", "clientClosedConnection":
                return "the database at \(location) cannot be reached"
            default:
                return failure.description
            }
        }
    }
}

/// A connection held by one call.
struct PostgresSession {
    let store: PostgresStore
    let connection: PostgresConnection

    /// Runs one statement and waits for its rows.
    @discardableResult
    func run(_ query: PostgresQuery) throws -> PostgresQueryResult {
        try store.wait(connection.query(query, logger: store.logger), connection: connection)
    }
}

/// Failures of ``PostgresStore`` itself (PostgreSQL's own are ``PostgresFailure``s).
public enum PostgresStoreError: Error, CustomStringConvertible, Equatable {
    case closed
    case timedOut(after: TimeAmount)
    case newerSchema(Int, known: Int)
    case unreachable(String, because: String?)
    case refused(String, because: String)

    public var description: String {
        switch self {
        case .unreachable(let location, let reason):
            return "the database at \(location) cannot be reached" + (reason.map { ": \($0)" } ?? "")
        case .refused(let location, let reason):
            return "the database at \(location) refused the connection: \(reason)"
        case .closed: return "the database connection is closed (the server is stopping)"
        case .timedOut(let after):
            return "the database did not answer within \(after.nanoseconds / 1_000_000) ms"
        case .newerSchema(let found, let known):
            return
                "the database's schema is version \(found), written by a newer pttd (this one knows up to \(known)): upgrade this node"
        }
    }
}
