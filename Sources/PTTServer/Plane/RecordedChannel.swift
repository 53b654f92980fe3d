import Foundation
import NIOCore
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

    /// Its bursts started at or after `since`, newest first, at most `limit`, read on the storage's thread.
    /// `live` is the directory now (a deleted channel's name may be a live channel's again).
    func bursts(
        in storage: StorageQueue, live: ChannelDirectory, since: Date?, limit: Int
    ) -> EventLoopFuture<[RecordedBurst]> {
        switch self {
        case .live(let channel):
            let id = channel.id
            return storage.run { try $0.bursts(in: id, since: since, limit: limit) }
        case .deleted(let name):
            let current = live.channel(named: name)?.id
            return storage.run { try $0.bursts(named: name, except: current, since: since, limit: limit) }
        }
    }
}
