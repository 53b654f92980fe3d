import Foundation
import PTTCore
import PTTStore

/// Whose recordings a history or an export reads: a live channel's, or those of deleted channels once named so
/// (`?deleted=true`, `pttctl history NAME --deleted`), which stay until retention removes them.
enum RecordedChannel {
    case live(PTTCore.Channel)
    /// Channels no longer in the directory that had this name (or this id).
    case deleted(String)

    /// What errors and logs call it.
    var name: String {
        switch self {
        case .live(let channel): "'\(channel.name)'"
        case .deleted(let name): "deleted channel '\(name)'"
        }
    }

    /// Its bursts started at or after `since`, newest first, at most `limit`.
    func bursts(in store: any Storage, live: ChannelDirectory, since: Date?, limit: Int) throws -> [RecordedBurst] {
        switch self {
        case .live(let channel):
            return try store.bursts(in: channel.id, since: since, limit: limit)
        case .deleted(let name):
            let current = live.channel(named: name)
            return try store.bursts(named: name, except: current?.id, since: since, limit: limit)
        }
    }
}
