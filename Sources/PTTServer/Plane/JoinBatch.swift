import PTTCore
import PTTProtocol

/// Joins that arrived together, planned one after the other and stored in one transaction (group commit):
/// a thousand members joining at once cost a handful of disk syncs instead of a thousand, and still
/// nobody is answered before their membership is on disk.
///
/// Confined to the control plane's event loop. The batch is flushed at the end of the loop turn in
/// which its first join arrived, and before the plane handles anything else (another request, an admin
/// change, a commit), so every request still sees the joins that arrived before it.
struct JoinBatch {
    struct Entry {
        var session: ControlSession
        var channel: Channel
        var membership: Membership
        var isNew: Bool
        var createdChannel: Bool
        /// The `joined` answer, as of this join's place in the batch.
        var answer: Joined
        /// The members told of a new member: those in the channel before it.
        var others: [Membership]
    }

    private(set) var entries: [Entry] = []
    private(set) var changes: [DirectoryChange] = []
    /// The directory with the batch applied (nil while empty): the next join is planned against it.
    private(set) var directory: ChannelDirectory?
    /// A flush is queued on the plane's loop.
    var flushQueued = false

    /// Takes the batch's directory out to plan the next join in it: a directory referenced only once is
    /// changed in place, where a shared one would be copied whole for every join.
    mutating func takeDirectory() -> ChannelDirectory? {
        defer { directory = nil }
        return directory
    }

    mutating func add(_ entry: Entry, changes: [DirectoryChange], directory: ChannelDirectory) {
        entries.append(entry)
        self.changes.append(contentsOf: changes)
        self.directory = directory
    }
}
