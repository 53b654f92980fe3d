import Foundation
import Logging
import NIOCore
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
///
/// The store keeps the ``Storage`` conformance and hands each call to the part that knows its tables: the
/// connection (`PostgresSerialConnection`), the schema (`PostgresSchema`), the directory, announcement, burst and
/// sign-in rows, and the cluster's rows (``PostgresClusterRows``).
public final class PostgresStore: Storage, @unchecked Sendable {
    /// This node's name in a cluster: directory writes notify the other nodes, naming it.
    public let node: String?
    /// The one connection every call is carried on.
    let serial: PostgresSerialConnection
    let directoryRows: PostgresDirectoryRows
    let announcementRows: PostgresAnnouncementRows
    let burstRows: PostgresBurstRows
    let signInRows: PostgresSignInRows
    let clusterRows: PostgresClusterRows

    /// Where the database is.
    public var location: PostgresLocation { serial.location }
    /// The longest a call waits for the database.
    public var timeout: TimeAmount { serial.timeout }

    /// Connects to the database at `location`, then creates or migrates its schema; throws with what went wrong
    /// (``describe(_:)``) if the database cannot be reached or refuses. With `node`, every directory write tells
    /// the other nodes (LISTEN ``directoryNotifications``).
    public init(
        location: PostgresLocation, node: String? = nil, timeout: Duration = .seconds(10), logger: Logger
    )
        throws
    {
        let serial = PostgresSerialConnection(
            location: location, timeout: .milliseconds(Int64(timeout / .milliseconds(1))), logger: logger)
        self.node = node
        self.serial = serial
        directoryRows = PostgresDirectoryRows(serial: serial, node: node)
        announcementRows = PostgresAnnouncementRows(serial: serial)
        burstRows = PostgresBurstRows(serial: serial)
        signInRows = PostgresSignInRows(serial: serial)
        clusterRows = PostgresClusterRows(serial: serial)
        do {
            try serial.transaction { try PostgresSchema.migrate($0) }
        } catch {
            close()
            throw error
        }
    }

    /// Closes the connection and stops its thread; calls after this throw.
    public func close() {
        serial.close()
    }

    /// The newest schema version this pttd knows.
    public static var schemaVersionKnown: Int { PostgresSchema.known }

    /// The schema version stored (0 before the first migration).
    public func schemaVersion() throws -> Int {
        try PostgresSchema.version(on: serial)
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
