import PTTCore

/// Channels, users, memberships and announcements: ``Storage``'s calls, answered by the directory and announcement
/// rows.
extension PostgresStore {
    public func load() throws -> ChannelDirectory {
        try directoryRows.load()
    }

    /// Writes the changes in one transaction; in a cluster the same transaction notifies the other nodes
    /// (``directoryNotifications``), who reload the directory when it commits. Throws ``StorageConflict`` when
    /// another node changed what the changes were planned against (a channel of the same name created, a channel or
    /// user deleted, the same membership stored): nothing is written, and planning again after a ``load()``
    /// succeeds.
    public func write(_ changes: [DirectoryChange]) throws {
        try directoryRows.write(changes)
    }

    public func loadAnnouncements() throws -> [StoredAnnouncement] {
        try announcementRows.load()
    }

    public func write(_ changes: [AnnouncementChange]) throws {
        try announcementRows.write(changes)
    }
}
