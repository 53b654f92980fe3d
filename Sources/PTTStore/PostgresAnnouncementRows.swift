import Foundation
import PTTCore
import PostgresNIO

/// Stored announcements in PostgreSQL; each is deleted with its membership.
struct PostgresAnnouncementRows {
    /// The connection the rows are read and written on.
    let serial: PostgresSerialConnection

    /// Every stored announcement.
    func load() throws -> [StoredAnnouncement] {
        try serial.serially { session in
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

    /// Writes the changes in one transaction.
    func write(_ changes: [AnnouncementChange]) throws {
        try serial.pipelinedTransaction(
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
