import Logging
import PTTStore
import PostgresNIO

extension ClusterNode {
    /// How long a stopping node waits for each of its tasks and its last query: pttd stops within 2 s of SIGTERM,
    /// even when the database went silent under a query.
    static let stopWait = Duration.seconds(1)
    /// How long a round of ownership may take before the node stops waiting for it (its queries then answer no one).
    static let roundDeadline = Duration.seconds(5)

    func connect() async throws -> PostgresConnection {
        do {
            return try await PostgresConnection.connect(
                configuration: try location.configuration(), id: 2, logger: logger)
        } catch {
            throw PostgresStoreError.connectionFailed(error, location)
        }
    }

    static func lock(_ name: String, on connection: PostgresConnection, logger: Logger) async throws -> Bool {
        let rows = try await connection.query(
            PostgresClusterRows.tryLock(PostgresClusterRows.lockKey("node", name)), logger: logger)
        for try await locked in rows.decode(Bool.self) { return locked }
        return false
    }
}
