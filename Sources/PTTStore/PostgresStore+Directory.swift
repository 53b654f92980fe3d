import Foundation
import PTTCore
import PostgresNIO

/// Channels, users, memberships and announcements in PostgreSQL.
extension PostgresStore {
    public func load() throws -> ChannelDirectory {
        try transaction { session in
            // One snapshot for the three tables (REPEATABLE READ): a node loading while another writes sees the
            // directory as it was at one moment.
            try session.run("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
            let channels = try session.run(
                "SELECT id, name, image_url, created_at, recording FROM channel"
            ).compactMap { row -> PTTCore.Channel? in
                let (id, name, image, created, recording) = try row.decode(
                    (String, String, String?, Double, Bool).self)
                guard let channel = ChannelID(string: id) else { return nil }
                return PTTCore.Channel(
                    id: channel, name: name, imageURL: image, createdAt: Date(timeIntervalSince1970: created),
                    recording: recording)
            }
            let users = try session.run(
                "SELECT name, secret_hash, salt, priority, receive_only, created_at FROM app_user"
            ).map { row -> User in
                let (name, hash, salt, priority, receiveOnly, created) = try row.decode(
                    (String, Data, Data, Int, Bool, Double).self)
                return User(
                    name: name, secretHash: Array(hash), salt: Array(salt), priority: priority,
                    receiveOnly: receiveOnly, createdAt: Date(timeIntervalSince1970: created))
            }
            let memberships = try session.run(
                """
                SELECT id, channel_id, user_name, device, display_name, priority, receive_only, push_token, ssrc,
                    media_key, media_suite, joined_at, member_events FROM membership
                """
            ).compactMap { row -> Membership? in
                let (
                    id, channel, user, device, display, priority, receiveOnly, token, ssrc, key, suite, joined, events
                ) =
                    try row.decode(
                        (String, String, String, String, String, Int, Bool, Data?, Int64, Data, String, Double, Bool)
                            .self)
                guard let channel = ChannelID(string: channel) else { return nil }
                // A suite this version does not know falls back to the default: keys are made anew at start.
                return Membership(
                    id: MemberID(id), channel: channel, user: user, device: device, displayName: display,
                    priority: priority, receiveOnly: receiveOnly, pushToken: token.map { Array($0) },
                    ssrc: UInt32(truncatingIfNeeded: ssrc), mediaKey: Array(key),
                    mediaSuite: MediaSuite(rawValue: suite) ?? .default,
                    joinedAt: Date(timeIntervalSince1970: joined), memberEvents: events)
            }
            return ChannelDirectory(channels: channels, users: users, memberships: memberships)
        }
    }

    /// Writes the changes in one transaction; in a cluster the same transaction notifies the other nodes
    /// (``directoryNotifications``), who reload the directory when it commits. Throws ``StorageConflict`` when
    /// another node changed what the changes were planned against (a channel of the same name created, a channel or
    /// user deleted, the same membership stored): nothing is written, and planning again after a ``load()``
    /// succeeds.
    public func write(_ changes: [DirectoryChange]) throws {
        guard !changes.isEmpty else { return }
        var statements = changes.map(Self.statement)
        if let node { statements.append("SELECT pg_notify(\(Self.directoryNotifications), \(node))") }
        do {
            try pipelinedTransaction(statements)
        } catch let failure as PostgresFailure where failure.isConflict {
            throw StorageConflict(reason: failure.description)
        }
    }

    static func statement(_ change: DirectoryChange) -> PostgresQuery {
        switch change {
        case .putChannel(let c):
            return """
                INSERT INTO channel (id, name, image_url, created_at, recording)
                VALUES (\(c.id.description), \(c.name), \(c.imageURL), \(c.createdAt.timeIntervalSince1970), \(c.recording))
                ON CONFLICT (id) DO UPDATE SET name = excluded.name, image_url = excluded.image_url,
                    recording = excluded.recording
                """
        case .removeChannel(let id):
            return "DELETE FROM channel WHERE id = \(id.description)"
        case .putUser(let u):
            return """
                INSERT INTO app_user (name, secret_hash, salt, priority, receive_only, created_at)
                VALUES (\(u.name), \(ByteBuffer(bytes: u.secretHash)), \(ByteBuffer(bytes: u.salt)), \(u.priority), \(u.receiveOnly),
                    \(u.createdAt.timeIntervalSince1970))
                ON CONFLICT (name) DO UPDATE SET secret_hash = excluded.secret_hash, salt = excluded.salt,
                    priority = excluded.priority, receive_only = excluded.receive_only
                """
        case .removeUser(let name):
            return "DELETE FROM app_user WHERE name = \(name)"
        case .putMembership(let m):
            return """
                INSERT INTO membership (id, channel_id, user_name, device, display_name, priority, receive_only,
                    push_token, ssrc, media_key, media_suite, joined_at, member_events)
                VALUES (\(m.id.rawValue), \(m.channel.description), \(m.user), \(m.device), \(m.displayName),
                    \(m.priority), \(m.receiveOnly), \(m.pushToken.map { ByteBuffer(bytes: $0) }), \(Int64(m.ssrc)),
                    \(ByteBuffer(bytes: m.mediaKey)), \(m.mediaSuite.rawValue), \(m.joinedAt.timeIntervalSince1970),
                    \(m.memberEvents))
                ON CONFLICT (id) DO UPDATE SET display_name = excluded.display_name, priority = excluded.priority,
                    receive_only = excluded.receive_only, push_token = excluded.push_token,
                    media_key = excluded.media_key, media_suite = excluded.media_suite,
                    member_events = excluded.member_events
                """
        case .removeMembership(let id):
            return "DELETE FROM membership WHERE id = \(id.rawValue)"
        }
    }

    public func loadAnnouncements() throws -> [StoredAnnouncement] {
        try serially { session in
            try session.run(
                "SELECT id, membership_id, channel_id, collapse_id, text, created_at, expires_at FROM announcement"
            ).compactMap { row -> StoredAnnouncement? in
                let (id, member, channel, collapse, text, created, expires) = try row.decode(
                    (String, String, String, String?, String, Double, Double).self)
                guard let channel = ChannelID(string: channel) else { return nil }
                return StoredAnnouncement(
                    id: id, member: MemberID(member), channel: channel, collapseID: collapse, text: text,
                    createdAt: Date(timeIntervalSince1970: created), expiresAt: Date(timeIntervalSince1970: expires))
            }
        }
    }

    public func write(_ changes: [AnnouncementChange]) throws {
        try pipelinedTransaction(
            changes.map { change -> PostgresQuery in
                switch change {
                case .put(let a):
                    return """
                        INSERT INTO announcement (id, membership_id, channel_id, collapse_id, text, created_at, expires_at)
                        VALUES (\(a.id), \(a.member.rawValue), \(a.channel.description), \(a.collapseID), \(a.text),
                            \(a.createdAt.timeIntervalSince1970), \(a.expiresAt.timeIntervalSince1970))
                        ON CONFLICT (id) DO UPDATE SET membership_id = excluded.membership_id,
                            channel_id = excluded.channel_id, collapse_id = excluded.collapse_id, text = excluded.text,
                            created_at = excluded.created_at, expires_at = excluded.expires_at
                        """
                case .remove(let id):
                    return "DELETE FROM announcement WHERE id = \(id)"
                }
            })
    }
}
