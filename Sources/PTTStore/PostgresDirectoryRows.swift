import Foundation
import PTTCore
import PostgresNIO

/// Channels, users and memberships in PostgreSQL.
struct PostgresDirectoryRows {
    /// The connection the rows are read and written on.
    let serial: PostgresSerialConnection
    /// This node's name in a cluster: every write notifies the other nodes, naming it.
    let node: String?

    /// The three tables as they were at one moment.
    func load() throws -> ChannelDirectory {
        try serial.transaction { session in
            // One snapshot for the three tables (REPEATABLE READ): a node loading while another writes sees the
            // directory as it was at one moment.
            try session.run("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
            let channels = try session.run(
                """
                SELECT id, name, image_url, created_at, recording, emergency_level, emergency_member, emergency_user,
                    emergency_since, emergency_cleared_by, emergency_cleared_name, kind FROM channel
                """
            ).compactMap { row -> PTTCore.Channel? in
                let (id, name, image, created, recording, level, member, user, since, clearedBy, clearedName, kind) =
                    try row.decode(
                        (
                            String, String, String?, Double, Bool, String?, String?, String?, Double?, String?, String?,
                            String
                        ).self)
                guard let channel = ChannelID(string: id) else { return nil }
                return PTTCore.Channel(
                    id: channel, name: name, imageURL: image, createdAt: Date(timeIntervalSince1970: created),
                    recording: recording,
                    emergency: ChannelEmergency.stored(level: level, member: member, user: user, since: since),
                    emergencyCleared: EmergencyClearing.stored(by: clearedBy, name: clearedName),
                    kind: PTTCore.Channel.Kind(rawValue: kind) ?? .group)
            }
            let users = try session.run(
                "SELECT name, secret_hash, salt, priority, receive_only, created_at, rights FROM app_user"
            ).map { row -> User in
                let (name, hash, salt, priority, receiveOnly, created, rights) = try row.decode(
                    (String, Data, Data, Int, Bool, Double, Int).self)
                return User(
                    name: name, secretHash: Array(hash), salt: Array(salt), priority: priority,
                    receiveOnly: receiveOnly, createdAt: Date(timeIntervalSince1970: created),
                    rights: UserRights(rawValue: rights))
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

    /// Writes the changes in one transaction; with a ``node`` the same transaction notifies the other nodes
    /// (``PostgresClusterRows/directoryNotifications``), who reload the directory when it commits. Throws
    /// ``StorageConflict`` when another node changed what the changes were planned against (a channel of the same
    /// name created, a channel or user deleted, the same membership stored): nothing is written, and planning again
    /// after a ``load()`` succeeds.
    func write(_ changes: [DirectoryChange]) throws {
        guard !changes.isEmpty else { return }
        var statements = changes.map(Self.statement)
        if let node { statements.append("SELECT pg_notify(\(PostgresClusterRows.directoryNotifications), \(node))") }
        do {
            try serial.pipelinedTransaction(statements)
        } catch let failure as PostgresFailure where failure.isConflict {
            throw StorageConflict(reason: failure.description)
        }
    }

    /// The statement that makes one change.
    static func statement(_ change: DirectoryChange) -> PostgresQuery {
        switch change {
        case .putChannel(let c):
            let emergency = c.emergency
            return """
                INSERT INTO channel (id, name, image_url, created_at, recording, emergency_level, emergency_member,
                    emergency_user, emergency_since, emergency_cleared_by, emergency_cleared_name, kind)
                VALUES (\(c.id.description), \(c.name), \(c.imageURL), \(c.createdAt.timeIntervalSince1970), \(c.recording),
                    \(emergency?.level.rawValue), \(emergency?.member.rawValue), \(emergency?.user),
                    \(emergency?.since.timeIntervalSince1970), \(c.emergencyCleared?.by.rawValue),
                    \(c.emergencyCleared?.name), \(c.kind.rawValue))
                ON CONFLICT (id) DO UPDATE SET name = excluded.name, image_url = excluded.image_url,
                    recording = excluded.recording, emergency_level = excluded.emergency_level,
                    emergency_member = excluded.emergency_member, emergency_user = excluded.emergency_user,
                    emergency_since = excluded.emergency_since, emergency_cleared_by = excluded.emergency_cleared_by,
                    emergency_cleared_name = excluded.emergency_cleared_name
                """
        case .removeChannel(let id):
            return "DELETE FROM channel WHERE id = \(id.description)"
        case .putUser(let u):
            return """
                INSERT INTO app_user (name, secret_hash, salt, priority, receive_only, created_at, rights)
                VALUES (\(u.name), \(ByteBuffer(bytes: u.secretHash)), \(ByteBuffer(bytes: u.salt)), \(u.priority), \(u.receiveOnly),
                    \(u.createdAt.timeIntervalSince1970), \(u.rights.rawValue))
                ON CONFLICT (name) DO UPDATE SET secret_hash = excluded.secret_hash, salt = excluded.salt,
                    priority = excluded.priority, receive_only = excluded.receive_only, rights = excluded.rights
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
}
