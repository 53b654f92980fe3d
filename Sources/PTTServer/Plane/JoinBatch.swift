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
        /// The request and who sent it: a batch that met another node's change is planned again from them.
        var request: Join
        var device: SessionTable.DeviceKey
        /// Set when planning again refused the join: it is answered with this error, in its place.
        var refusal: JoinPlan.Refusal?
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

    /// What to store, as one transaction: the channels the batch creates first, by name, then the memberships in
    /// order. Two nodes creating some of the same channels then take the database's locks on their names in the
    /// same order: one waits for the other (and adopts its channels), where in any order they could deadlock.
    var write: [DirectoryChange] {
        var channels: [Channel] = []
        var rest: [DirectoryChange] = []
        for change in changes {
            if case .putChannel(let channel) = change { channels.append(channel) } else { rest.append(change) }
        }
        return channels.sorted { $0.name < $1.name }.map(DirectoryChange.putChannel) + rest
    }

    mutating func add(_ entry: Entry, changes: [DirectoryChange], directory: ChannelDirectory) {
        entries.append(entry)
        self.changes.append(contentsOf: changes)
        self.directory = directory
    }
}
