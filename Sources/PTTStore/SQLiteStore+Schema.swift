import GRDB

/// The SQLite schema, one migration per change (never edit one that shipped: add another).
extension SQLiteStore {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE channel (
                        id TEXT PRIMARY KEY NOT NULL,
                        name TEXT NOT NULL UNIQUE,
                        imageURL TEXT,
                        createdAt DOUBLE NOT NULL
                    );
                    CREATE TABLE user (
                        name TEXT PRIMARY KEY NOT NULL,
                        secretHash BLOB NOT NULL,
                        salt BLOB NOT NULL,
                        priority INTEGER NOT NULL,
                        receiveOnly BOOLEAN NOT NULL,
                        createdAt DOUBLE NOT NULL
                    );
                    CREATE TABLE membership (
                        id TEXT PRIMARY KEY NOT NULL,
                        channelId TEXT NOT NULL REFERENCES channel(id) ON DELETE CASCADE,
                        userName TEXT NOT NULL REFERENCES user(name) ON DELETE CASCADE,
                        device TEXT NOT NULL,
                        displayName TEXT NOT NULL,
                        priority INTEGER NOT NULL,
                        receiveOnly BOOLEAN NOT NULL,
                        pushToken BLOB,
                        ssrc INTEGER NOT NULL,
                        mediaKey BLOB NOT NULL,
                        joinedAt DOUBLE NOT NULL,
                        UNIQUE (channelId, userName, device)
                    );
                    """)
        }
        migrator.registerMigration("v2-announcements") { db in
            try db.execute(
                sql: """
                    CREATE TABLE announcement (
                        id TEXT PRIMARY KEY NOT NULL,
                        membershipId TEXT NOT NULL REFERENCES membership(id) ON DELETE CASCADE,
                        channelId TEXT NOT NULL,
                        collapseId TEXT,
                        text TEXT NOT NULL,
                        createdAt DOUBLE NOT NULL,
                        expiresAt DOUBLE NOT NULL
                    );
                    CREATE INDEX announcement_membership ON announcement(membershipId);
                    """)
        }
        migrator.registerMigration("v3-media-suite") { db in
            try db.execute(
                sql: "ALTER TABLE membership ADD COLUMN mediaSuite TEXT NOT NULL DEFAULT 'AES_CM_128_HMAC_SHA1_80'")
        }
        // Memberships stored before member events could be declined keep being told, as they were.
        migrator.registerMigration("v4-member-events") { db in
            try db.execute(sql: "ALTER TABLE membership ADD COLUMN memberEvents BOOLEAN NOT NULL DEFAULT 1")
        }
        migrator.registerMigration("v5-recordings") { db in
            try db.execute(
                sql: """
                    ALTER TABLE channel ADD COLUMN recording BOOLEAN NOT NULL DEFAULT 0;
                    CREATE TABLE burst (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        channelId TEXT NOT NULL,
                        channelName TEXT NOT NULL,
                        speaker TEXT NOT NULL,
                        speakerName TEXT NOT NULL,
                        startedAt DOUBLE NOT NULL,
                        durationMs INTEGER NOT NULL,
                        packets INTEGER NOT NULL,
                        bytes INTEGER NOT NULL,
                        file TEXT NOT NULL,
                        state TEXT NOT NULL
                    );
                    CREATE INDEX burst_channel_start ON burst(channelId, startedAt);
                    """)
        }
        // Sign-in links (one use, a deadline) and the browser credentials they give; both go with their user.
        migrator.registerMigration("v6-sign-in-links") { db in
            try db.execute(
                sql: """
                    CREATE TABLE sign_in_link (
                        tokenHash BLOB PRIMARY KEY NOT NULL,
                        userName TEXT NOT NULL REFERENCES user(name) ON DELETE CASCADE,
                        createdAt DOUBLE NOT NULL,
                        expiresAt DOUBLE NOT NULL
                    );
                    CREATE TABLE web_credential (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        userName TEXT NOT NULL REFERENCES user(name) ON DELETE CASCADE,
                        secretHash BLOB NOT NULL,
                        salt BLOB NOT NULL,
                        createdAt DOUBLE NOT NULL
                    );
                    CREATE INDEX web_credential_user ON web_credential(userName);
                    """)
        }
        // Emergencies (issue 25): a user's rights, and a channel's declared emergency, kept across restarts.
        migrator.registerMigration("v7-emergencies") { db in
            try db.execute(
                sql: """
                    ALTER TABLE user ADD COLUMN rights INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE channel ADD COLUMN emergencyLevel TEXT;
                    ALTER TABLE channel ADD COLUMN emergencyMember TEXT;
                    ALTER TABLE channel ADD COLUMN emergencyUser TEXT;
                    ALTER TABLE channel ADD COLUMN emergencySince DOUBLE;
                    """)
        }
        // Who cleared a channel's last emergency, so that a cluster's other nodes can say so.
        migrator.registerMigration("v8-emergency-cleared") { db in
            try db.execute(
                sql: """
                    ALTER TABLE channel ADD COLUMN emergencyClearedBy TEXT;
                    ALTER TABLE channel ADD COLUMN emergencyClearedName TEXT;
                    """)
        }
        // Private calls: a call's channel is a channel of kind 'call'.
        migrator.registerMigration("v9-channel-kind") { db in
            try db.execute(sql: "ALTER TABLE channel ADD COLUMN kind TEXT NOT NULL DEFAULT 'group'")
        }
        return migrator
    }
}
