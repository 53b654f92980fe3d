import PostgresNIO

/// The tables in PostgreSQL: those of ``SQLiteStore`` with PostgreSQL's types and snake_case names (`app_user`
/// for `user`, a reserved word). Times are seconds since 1970 in `DOUBLE PRECISION`, as in SQLite, so that a date
/// reads back exactly as it was written.
enum PostgresSchema {
    /// Each migration's statements, in order; the version is its position (1-based). Never edit one that shipped:
    /// add another.
    static let migrations: [[PostgresQuery]] = [
        [
            """
            CREATE TABLE channel (
                id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, image_url TEXT,
                created_at DOUBLE PRECISION NOT NULL, recording BOOLEAN NOT NULL DEFAULT FALSE)
            """,
            """
            CREATE TABLE app_user (
                name TEXT PRIMARY KEY, secret_hash BYTEA NOT NULL, salt BYTEA NOT NULL, priority INTEGER NOT NULL,
                receive_only BOOLEAN NOT NULL, created_at DOUBLE PRECISION NOT NULL)
            """,
            """
            CREATE TABLE membership (
                id TEXT PRIMARY KEY,
                channel_id TEXT NOT NULL REFERENCES channel(id) ON DELETE CASCADE,
                user_name TEXT NOT NULL REFERENCES app_user(name) ON DELETE CASCADE,
                device TEXT NOT NULL, display_name TEXT NOT NULL, priority INTEGER NOT NULL,
                receive_only BOOLEAN NOT NULL, push_token BYTEA, ssrc BIGINT NOT NULL, media_key BYTEA NOT NULL,
                media_suite TEXT NOT NULL, joined_at DOUBLE PRECISION NOT NULL, member_events BOOLEAN NOT NULL,
                UNIQUE (channel_id, user_name, device))
            """,
            "CREATE INDEX membership_user ON membership(user_name)",
            """
            CREATE TABLE announcement (
                id TEXT PRIMARY KEY,
                membership_id TEXT NOT NULL REFERENCES membership(id) ON DELETE CASCADE,
                channel_id TEXT NOT NULL, collapse_id TEXT, text TEXT NOT NULL,
                created_at DOUBLE PRECISION NOT NULL, expires_at DOUBLE PRECISION NOT NULL)
            """,
            "CREATE INDEX announcement_membership ON announcement(membership_id)",
            """
            CREATE TABLE burst (
                id BIGSERIAL PRIMARY KEY, channel_id TEXT NOT NULL, channel_name TEXT NOT NULL,
                speaker TEXT NOT NULL, speaker_name TEXT NOT NULL, started_at DOUBLE PRECISION NOT NULL,
                duration_ms BIGINT NOT NULL, packets BIGINT NOT NULL, bytes BIGINT NOT NULL, file TEXT NOT NULL,
                state TEXT NOT NULL)
            """,
            "CREATE INDEX burst_channel_start ON burst(channel_id, started_at)",
            """
            CREATE TABLE sign_in_link (
                token_hash BYTEA PRIMARY KEY,
                user_name TEXT NOT NULL REFERENCES app_user(name) ON DELETE CASCADE,
                created_at DOUBLE PRECISION NOT NULL, expires_at DOUBLE PRECISION NOT NULL)
            """,
            """
            CREATE TABLE web_credential (
                id BIGSERIAL PRIMARY KEY,
                user_name TEXT NOT NULL REFERENCES app_user(name) ON DELETE CASCADE,
                secret_hash BYTEA NOT NULL, salt BYTEA NOT NULL, created_at DOUBLE PRECISION NOT NULL)
            """,
            "CREATE INDEX web_credential_user ON web_credential(user_name)",
        ],
        // The nodes of a cluster: each writes its row at start; it is alive while it holds its advisory lock.
        [
            """
            CREATE TABLE node (
                name TEXT PRIMARY KEY, lock_key BIGINT NOT NULL, admin_url TEXT NOT NULL, control TEXT NOT NULL,
                media TEXT NOT NULL, host TEXT NOT NULL, pid BIGINT NOT NULL, version TEXT NOT NULL,
                started_at DOUBLE PRECISION NOT NULL, stopped_at DOUBLE PRECISION)
            """
        ],
        // The database session of each node's own connection: the locks it holds (its name, its channels) are
        // found in pg_locks by this pid.
        ["ALTER TABLE node ADD COLUMN backend_pid INTEGER"],
        // Node links: where a node takes the other nodes' links, and the certificate it proves itself with there.
        [
            "ALTER TABLE node ADD COLUMN link TEXT NOT NULL DEFAULT ''",
            "ALTER TABLE node ADD COLUMN fingerprint TEXT NOT NULL DEFAULT ''",
        ],
        // Emergencies (issue 25): a user's rights, and a channel's declared emergency.
        [
            "ALTER TABLE app_user ADD COLUMN rights INTEGER NOT NULL DEFAULT 0",
            "ALTER TABLE channel ADD COLUMN emergency_level TEXT",
            "ALTER TABLE channel ADD COLUMN emergency_member TEXT",
            "ALTER TABLE channel ADD COLUMN emergency_user TEXT",
            "ALTER TABLE channel ADD COLUMN emergency_since DOUBLE PRECISION",
        ],
        // Who cleared a channel's last emergency: the other nodes tell their members so.
        [
            "ALTER TABLE channel ADD COLUMN emergency_cleared_by TEXT",
            "ALTER TABLE channel ADD COLUMN emergency_cleared_name TEXT",
        ],
        // Private calls: a call's channel is a channel of kind 'call'.
        ["ALTER TABLE channel ADD COLUMN kind TEXT NOT NULL DEFAULT 'group'"],
    ]

    /// The newest schema version this pttd knows.
    static var known: Int { migrations.count }

    /// The advisory lock key under which nodes migrate one at a time ("pttrelay" in ASCII).
    static let migrationLock: Int64 = 0x7074_7472_656c_6179

    /// Creates or migrates the schema, inside the caller's transaction; throws if the database was migrated by a
    /// newer pttd.
    static func migrate(_ session: PostgresSession) throws {
        try session.run("SELECT pg_advisory_xact_lock(\(migrationLock))")
        try session.run("CREATE TABLE IF NOT EXISTS ptt_schema (version INTEGER NOT NULL)")
        let rows = try session.run("SELECT COALESCE(MAX(version), 0) FROM ptt_schema")
        let current = try rows.first?.decode(Int.self) ?? 0
        guard current <= migrations.count else {
            throw PostgresStoreError.newerSchema(current, known: migrations.count)
        }
        for version in (current + 1)..<(migrations.count + 1) {
            for statement in migrations[version - 1] { try session.run(statement) }
            try session.run("INSERT INTO ptt_schema (version) VALUES (\(version))")
        }
    }

    /// The schema version stored (0 before the first migration).
    static func version(on serial: PostgresSerialConnection) throws -> Int {
        try serial.serially { session in
            try session.run("SELECT COALESCE(MAX(version), 0) FROM ptt_schema").first?.decode(Int.self) ?? 0
        }
    }
}
