import Foundation
import PostgresNIO

/// Nodes, their locks, and the notifications that keep their directories in step: the statements a cluster node
/// runs on its own connection, and the reads an admin makes through the store.
///
/// A node is alive while its database session holds its advisory lock (``lockKey(_:_:)`` in the `node` space); a
/// channel is owned by the node whose session holds the channel's lock.
public struct PostgresClusterRows: Sendable {
    /// The store's connection, for the reads made through the store.
    let serial: PostgresSerialConnection

    /// The LISTEN/NOTIFY channel on which every directory write names the node that made it.
    public static let directoryNotifications = "ptt_directory"

    /// The advisory lock key for `name` in a `space` (`node`, `channel`): FNV-1a of both, kept to 62 bits so that
    /// it is positive and reads back from `pg_locks` (two 32-bit halves) as it was.
    public static func lockKey(_ space: String, _ name: String) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in (space + ":" + name).utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return Int64(bitPattern: hash & 0x3FFF_FFFF_FFFF_FFFF)
    }

    /// Takes `key` for this database session if nobody holds it (`pg_try_advisory_lock`).
    public static func tryLock(_ key: Int64) -> PostgresQuery { "SELECT pg_try_advisory_lock(\(key))" }

    /// Writes (or rewrites) a node's row as it starts.
    public static func register(_ node: NodeRecord) -> PostgresQuery {
        """
        INSERT INTO node (name, lock_key, admin_url, control, media, host, pid, version, started_at, stopped_at,
            backend_pid, link, fingerprint)
        VALUES (\(node.name), \(lockKey("node", node.name)), \(node.adminURL), \(node.control), \(node.media),
            \(node.host), \(node.pid), \(node.version), \(node.startedAt.timeIntervalSince1970), NULL,
            pg_backend_pid(), \(node.link), \(node.fingerprint))
        ON CONFLICT (name) DO UPDATE SET lock_key = excluded.lock_key, admin_url = excluded.admin_url,
            control = excluded.control, media = excluded.media, host = excluded.host, pid = excluded.pid,
            version = excluded.version, started_at = excluded.started_at, stopped_at = NULL,
            backend_pid = excluded.backend_pid, link = excluded.link, fingerprint = excluded.fingerprint
        """
    }

    /// Marks a node stopped cleanly.
    public static func deregister(_ name: String, at time: Date) -> PostgresQuery {
        "UPDATE node SET stopped_at = \(time.timeIntervalSince1970) WHERE name = \(name)"
    }

    /// Takes, for this database session, each channel's lock that nobody holds; returns the channels taken.
    public static func tryOwn(_ channels: [String]) -> PostgresQuery {
        let keys = channels.map { lockKey("channel", $0) }
        return """
            SELECT c.id FROM unnest(\(channels)::TEXT[], \(keys)::BIGINT[]) AS c(id, key)
            WHERE pg_try_advisory_lock(c.key)
            """
    }

    /// Each owned channel and the node that owns it: the node whose session holds the channel's lock now.
    public static func ownersQuery(_ channels: [String]) -> PostgresQuery {
        let keys = channels.map { lockKey("channel", $0) }
        return """
            SELECT c.id, n.name FROM unnest(\(channels)::TEXT[], \(keys)::BIGINT[]) AS c(id, key)
            JOIN pg_locks l ON l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
                AND ((l.classid::BIGINT << 32) | l.objid::BIGINT) = c.key
                AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
            JOIN node n ON n.backend_pid = l.pid AND EXISTS (
                SELECT 1 FROM pg_locks own WHERE own.locktype = 'advisory' AND own.granted AND own.pid = l.pid
                    AND ((own.classid::BIGINT << 32) | own.objid::BIGINT) = n.lock_key)
            """
    }

    /// Each owned channel and the node that owns it (``ownersQuery(_:)``).
    func channelOwners(_ channels: [String]) throws -> [String: String] {
        guard !channels.isEmpty else { return [:] }
        return try serial.serially { session in
            var owners: [String: String] = [:]
            for row in try session.run(Self.ownersQuery(channels)) {
                let (channel, node) = try row.decode((String, String).self)
                owners[channel] = node
            }
            return owners
        }
    }

    /// Every node that ever started, by name, with whether it is alive now (its lock is held).
    public static let nodesQuery: PostgresQuery = """
        SELECT n.name, n.admin_url, n.control, n.media, n.host, n.pid, n.version, n.started_at,
            n.stopped_at, EXISTS (
                SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
                    AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
                    AND ((l.classid::BIGINT << 32) | l.objid::BIGINT) = n.lock_key),
            n.link, n.fingerprint
        FROM node n ORDER BY n.name
        """

    /// A row of ``nodesQuery``.
    public static func nodeRecord(_ row: PostgresRow) throws -> NodeRecord {
        let (name, admin, control, media, host, pid, version, started, stopped, alive, link, fingerprint) =
            try row.decode(
                (String, String, String, String, String, Int, String, Double, Double?, Bool, String, String).self)
        return NodeRecord(
            name: name, adminURL: admin, control: control, media: media, host: host, pid: pid,
            version: version, startedAt: Date(timeIntervalSince1970: started),
            stoppedAt: stopped.map { Date(timeIntervalSince1970: $0) }, alive: alive, link: link,
            fingerprint: fingerprint)
    }

    /// Every node that ever started (``nodesQuery``).
    func nodes() throws -> [NodeRecord] {
        try serial.serially { session in try session.run(Self.nodesQuery).map(Self.nodeRecord) }
    }
}
