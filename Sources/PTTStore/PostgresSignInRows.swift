import Foundation
import PTTCore
import PostgresNIO

/// Sign-in links and browser credentials in PostgreSQL; both are deleted with their user.
struct PostgresSignInRows {
    /// The connection the rows are read and written on.
    let serial: PostgresSerialConnection

    /// Stores a new link, dropping the links past their deadline.
    func insert(_ link: StoredSignInLink) throws {
        try serial.pipelinedTransaction([
            "DELETE FROM sign_in_link WHERE expires_at < \(link.createdAt.timeIntervalSince1970)",
            """
            INSERT INTO sign_in_link (token_hash, user_name, created_at, expires_at)
            VALUES (\(ByteBuffer(bytes: link.tokenHash)), \(link.user), \(link.createdAt.timeIntervalSince1970),
                \(link.expiresAt.timeIntervalSince1970))
            """,
        ])
    }

    /// Uses up the link with this token hash and, if it had not expired at `now`, stores `credential` for its
    /// user, keeping the newest `keep`: all in one transaction.
    func redeem(
        tokenHash: [UInt8], now: Date, credential: (String) -> WebCredential, keep: Int
    ) throws -> (link: StoredSignInLink, credential: WebCredential?)? {
        try serial.transaction { session in
            // DELETE … RETURNING takes the link once: two nodes redeeming it together cannot both get it.
            guard
                let row = try session.run(
                    """
                    DELETE FROM sign_in_link WHERE token_hash = \(ByteBuffer(bytes: tokenHash))
                    RETURNING user_name, created_at, expires_at
                    """
                ).first
            else { return nil }
            let (user, created, expires) = try row.decode((String, Double, Double).self)
            let link = StoredSignInLink(
                tokenHash: tokenHash, user: user, createdAt: Date(timeIntervalSince1970: created),
                expiresAt: Date(timeIntervalSince1970: expires))
            guard link.expiresAt > now else { return (link, nil) }
            var made = credential(link.user)
            made.id =
                try session.run(
                    """
                    INSERT INTO web_credential (user_name, secret_hash, salt, created_at)
                    VALUES (\(made.user), \(ByteBuffer(bytes: made.secretHash)), \(ByteBuffer(bytes: made.salt)),
                        \(made.createdAt.timeIntervalSince1970))
                    RETURNING id
                    """
                ).first?.decode(Int64.self) ?? 0
            try session.run(
                """
                DELETE FROM web_credential WHERE user_name = \(made.user) AND id NOT IN
                    (SELECT id FROM web_credential WHERE user_name = \(made.user) ORDER BY id DESC LIMIT \(keep))
                """)
            return (link, made)
        }
    }

    /// Every browser credential, oldest first.
    func loadCredentials() throws -> [WebCredential] {
        try serial.serially { session in
            try session.run(
                "SELECT id, user_name, secret_hash, salt, created_at FROM web_credential ORDER BY id"
            ).map { row in
                let (id, user, hash, salt, created) = try row.decode((Int64, String, Data, Data, Double).self)
                return WebCredential(
                    id: id, user: user, secretHash: Array(hash), salt: Array(salt),
                    createdAt: Date(timeIntervalSince1970: created))
            }
        }
    }
}
