import PostgresNIO

/// A failure PostgreSQL or postgres-nio reported, with its real text.
///
/// postgres-nio's `PSQLError` says only "Generic description to prevent accidental leakage of sensitive data" in
/// `description` (what logs and `"\(error)"` show). ``PostgresStore`` throws this instead: the server's SQLSTATE,
/// message, detail, hint, table and constraint, or the client-side code and its cause. It never carries the
/// query's bound values (secret hashes, media keys).
public struct PostgresFailure: Error, CustomStringConvertible, Sendable {
    /// postgres-nio's kind of failure (`server` when PostgreSQL answered with an error).
    public var code: String
    /// The SQLSTATE (`23505`: a unique constraint), when PostgreSQL answered.
    public var sqlState: String?
    /// PostgreSQL's message, detail and hint.
    public var message: String?
    public var detail: String?
    public var hint: String?
    /// The table and constraint the error is about, if any.
    public var table: String?
    public var constraint: String?
    /// The cause of a client-side failure (a refused or dropped connection), in words.
    public var underlying: String?

    /// `error` with its real text, if it is postgres-nio's; any other error as it is.
    public static func wrapping(_ error: any Error) -> any Error {
        guard let error = error as? PSQLError else { return error }
        return PostgresFailure(error)
    }

    public init(_ error: PSQLError) {
        code = "\(error.code)"
        sqlState = error.serverInfo?[.sqlState]
        message = error.serverInfo?[.message]
        detail = error.serverInfo?[.detail]
        hint = error.serverInfo?[.hint]
        table = error.serverInfo?[.tableName]
        constraint = error.serverInfo?[.constraintName]
        underlying = error.underlying.map { "\($0)" }
    }

    /// PostgreSQL answered with an error (as opposed to a connection that failed).
    public var fromServer: Bool { sqlState != nil }

    /// `database error 23505: duplicate key value violates unique constraint "channel_name_key" (Key
    /// (name)=(deck) already exists.; table channel)`, or the client-side code and its cause.
    public var description: String {
        guard let sqlState else {
            return "database connection failure (\(code))" + (underlying.map { ": \($0)" } ?? "")
        }
        var more: [String] = []
        if let detail { more.append(detail) }
        if let hint { more.append("hint: \(hint)") }
        if let table { more.append("table \(table)") }
        if let constraint, message?.contains(constraint) != true { more.append("constraint \(constraint)") }
        return "database error \(sqlState): \(message ?? "no message")"
            + (more.isEmpty ? "" : " (\(more.joined(separator: "; ")))")
    }

    /// The connection the failure came on is gone or going: a client-side failure (closed, refused, reset), a
    /// connection exception (SQLSTATE class 08), or the server ending the session (class 57P: an operator's
    /// `pg_terminate_backend`, a shutdown). Nothing more can be asked on it, not even a ROLLBACK.
    public var endsConnection: Bool {
        guard let sqlState else { return true }
        return sqlState.hasPrefix("57P") || sqlState.hasPrefix("08")
    }

    /// Another writer changed the rows this write depends on first (a unique or foreign key violation), or two
    /// writers waited for each other and this one was chosen to give way (a deadlock, a serialization failure).
    public var isConflict: Bool { ["23505", "23503", "40P01", "40001"].contains(sqlState) }
}
