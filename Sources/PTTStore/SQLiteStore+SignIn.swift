import Foundation
import GRDB
import PTTCore

/// A sign-in link as stored: the SHA-256 of its token (the token itself is only in the link), whose it is,
/// and until when it works.
public struct StoredSignInLink: Sendable, Equatable {
    public var tokenHash: [UInt8]
    public var user: String
    public var createdAt: Date
    public var expiresAt: Date
    public init(tokenHash: [UInt8], user: String, createdAt: Date, expiresAt: Date) {
        self.tokenHash = tokenHash
        self.user = user
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}

/// A browser's credential, given for a used sign-in link: a salted hash of its secret, as for a user's own.
public struct WebCredential: Sendable, Equatable {
    public var id: Int64
    public var user: String
    public var secretHash: [UInt8]
    public var salt: [UInt8]
    public var createdAt: Date
    public init(id: Int64 = 0, user: String, secretHash: [UInt8], salt: [UInt8], createdAt: Date) {
        self.id = id
        self.user = user
        self.secretHash = secretHash
        self.salt = salt
        self.createdAt = createdAt
    }
}

/// Sign-in links and browser credentials (`sign_in_link`, `web_credential`); both are deleted with their user.
extension SQLiteStore {
    /// Stores a new link, and drops links past their deadline (nobody can use them any more).
    public func insertSignInLink(_ link: StoredSignInLink) throws {
        try queue.write { db in
            try db.execute(
                sql: "DELETE FROM sign_in_link WHERE expiresAt < ?", arguments: [link.createdAt.timeIntervalSince1970])
            try db.execute(
                sql: "INSERT INTO sign_in_link (tokenHash, userName, createdAt, expiresAt) VALUES (?, ?, ?, ?)",
                arguments: [
                    Data(link.tokenHash), link.user, link.createdAt.timeIntervalSince1970,
                    link.expiresAt.timeIntervalSince1970,
                ])
        }
    }

    /// Uses up the link with this token hash: in one transaction it is deleted (whatever its deadline) and, if it
    /// had not expired at `now`, `credential` is stored for its user, keeping at most `keep` credentials per user
    /// (the oldest go). Returns the link as it was, or nil if there was none (never made, or used already).
    public func redeemSignInLink(
        tokenHash: [UInt8], now: Date, credential: (String) -> WebCredential, keep: Int
    ) throws -> (link: StoredSignInLink, credential: WebCredential?)? {
        try queue.write { db in
            guard
                let row = try Row.fetchOne(
                    db, sql: "SELECT * FROM sign_in_link WHERE tokenHash = ?", arguments: [Data(tokenHash)])
            else { return nil }
            let link = StoredSignInLink(
                tokenHash: tokenHash, user: row["userName"],
                createdAt: Date(timeIntervalSince1970: row["createdAt"]),
                expiresAt: Date(timeIntervalSince1970: row["expiresAt"]))
            try db.execute(sql: "DELETE FROM sign_in_link WHERE tokenHash = ?", arguments: [Data(tokenHash)])
            guard link.expiresAt > now else { return (link, nil) }
            var made = credential(link.user)
            try db.execute(
                sql: "INSERT INTO web_credential (userName, secretHash, salt, createdAt) VALUES (?, ?, ?, ?)",
                arguments: [made.user, Data(made.secretHash), Data(made.salt), made.createdAt.timeIntervalSince1970])
            made.id = db.lastInsertedRowID
            try db.execute(
                sql: """
                    DELETE FROM web_credential WHERE userName = ? AND id NOT IN
                        (SELECT id FROM web_credential WHERE userName = ? ORDER BY id DESC LIMIT ?)
                    """,
                arguments: [made.user, made.user, keep])
            return (link, made)
        }
    }

    /// Every browser credential, to check `hello`s against at start.
    public func loadWebCredentials() throws -> [WebCredential] {
        try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM web_credential ORDER BY id").map { row in
                WebCredential(
                    id: row["id"], user: row["userName"], secretHash: Array(row["secretHash"] as Data),
                    salt: Array(row["salt"] as Data), createdAt: Date(timeIntervalSince1970: row["createdAt"]))
            }
        }
    }
}
