import PostgresNIO

/// A connection held by one call of a ``PostgresSerialConnection``: nothing else runs on it meanwhile.
struct PostgresSession {
    /// Whose lock the call holds, and whose timeout bounds each answer.
    let serial: PostgresSerialConnection
    let connection: PostgresConnection

    /// Runs one statement and waits for its rows.
    @discardableResult
    func run(_ query: PostgresQuery) throws -> PostgresQueryResult {
        try serial.wait(connection.query(query, logger: serial.logger), connection: connection)
    }
}
