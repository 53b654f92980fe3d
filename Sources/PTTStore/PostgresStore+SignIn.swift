import Foundation
import PTTCore

/// Sign-in links and browser credentials: ``Storage``'s calls, answered by the sign-in rows.
extension PostgresStore {
    public func insertSignInLink(_ link: StoredSignInLink) throws {
        try signInRows.insert(link)
    }

    public func redeemSignInLink(
        tokenHash: [UInt8], now: Date, credential: (String) -> WebCredential, keep: Int
    ) throws -> (link: StoredSignInLink, credential: WebCredential?)? {
        try signInRows.redeem(tokenHash: tokenHash, now: now, credential: credential, keep: keep)
    }

    public func loadWebCredentials() throws -> [WebCredential] {
        try signInRows.loadCredentials()
    }

    /// `pttctl backup` copies a SQLite file; a cluster's database is backed up with PostgreSQL's own tools.
    public func backup(to path: String) throws -> BackupSummary {
        throw BackupError.unsupported(
            "this node keeps its data in PostgreSQL (\(location)): back it up with pg_dump, or PostgreSQL's base backups and WAL archiving"
        )
    }
}
