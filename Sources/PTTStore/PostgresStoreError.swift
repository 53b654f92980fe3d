import NIOCore

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

extension PostgresStoreError {
    /// What a failed connection attempt to `location` says: unreachable, or refused with PostgreSQL's words (a
    /// wrong password, an unknown database or role); an error that is not postgres-nio's as it is.
    public static func connectionFailed(_ error: any Error, _ location: PostgresLocation) -> any Error {
        guard let failure = PostgresFailure.wrapping(error) as? PostgresFailure else { return error }
        if let state = failure.sqlState {
            return PostgresStoreError.refused(
                "\(location)", because: "\(failure.message ?? "no message") (SQLSTATE \(state))")
        }
        return PostgresStoreError.unreachable("\(location)", because: failure.underlying)
    }
}
