import Foundation
import PTTCore

/// Where the server keeps what must outlive it: channels, users, memberships and their push tokens, announcements,
/// recordings' metadata, sign-in links and browser credentials.
///
/// Two implementations answer the same calls and pass the same test suite: ``SQLiteStore``, a file in the data
/// directory (the default, for one node), and ``PostgresStore``, a PostgreSQL database that several nodes share.
///
/// Every call is synchronous and returns once the change is committed (or throws having changed nothing): the
/// server tells a client only what is stored. Calls may come from several threads; an implementation serialises
/// them, and runs each batch of changes in one transaction.
public protocol Storage: AnyObject, Sendable {
    /// Everything stored, to rebuild the in-memory directory at start (or after a reconnect).
    func load() throws -> ChannelDirectory
    /// Writes directory changes in one transaction, in order; throws (and writes nothing) on failure.
    func write(_ changes: [DirectoryChange]) throws

    /// Every stored announcement (their memberships exist: removing a membership removes them).
    func loadAnnouncements() throws -> [StoredAnnouncement]
    /// Writes announcement changes in one transaction; throws (and writes nothing) on failure.
    func write(_ changes: [AnnouncementChange]) throws

    /// Adds a burst being recorded; returns it with its id. `file` may name the id with `{id}`, filled in here.
    func insertBurst(_ burst: RecordedBurst) throws -> RecordedBurst
    /// Stores how a burst ended (or what a recovery found in its file).
    func finishBurst(_ id: Int64, durationMs: Int, packets: Int, bytes: Int, state: RecordingState) throws
    /// Removes bursts' rows.
    func deleteBursts(_ ids: [Int64]) throws
    /// One burst by id.
    func burst(_ id: Int64) throws -> RecordedBurst?
    /// A channel's bursts started at or after `since`, newest first, at most `limit`.
    func bursts(in channel: ChannelID, since: Date?, limit: Int) throws -> [RecordedBurst]
    /// The bursts of channels named `name` (or whose id is `name`) when recorded, except those of channel `except`
    /// (the live channel of that name): a deleted channel's recordings, found by its old name until retention
    /// removes them. Started at or after `since`, newest first, at most `limit`.
    func bursts(named name: String, except: ChannelID?, since: Date?, limit: Int) throws -> [RecordedBurst]
    /// Every burst, oldest first (retention, recovery).
    func allBursts() throws -> [RecordedBurst]
    /// The size of every recording together, and when the oldest started.
    func burstTotals() throws -> (bytes: Int, oldest: Date?)

    /// Stores a new sign-in link, and drops links past their deadline (nobody can use them any more).
    func insertSignInLink(_ link: StoredSignInLink) throws
    /// Uses up the link with this token hash: in one transaction it is deleted (whatever its deadline) and, if it
    /// had not expired at `now`, `credential` is stored for its user, keeping at most `keep` credentials per user
    /// (the oldest go). Returns the link as it was, or nil if there was none (never made, or used already).
    func redeemSignInLink(
        tokenHash: [UInt8], now: Date, credential: (String) -> WebCredential, keep: Int
    ) throws -> (link: StoredSignInLink, credential: WebCredential?)?
    /// Every browser credential, to check `hello`s against at start.
    func loadWebCredentials() throws -> [WebCredential]

    /// Copies everything, consistently, to a new SQLite file at `path` while the server goes on (`pttctl backup`);
    /// throws with what to use instead where the storage has its own tools.
    func backup(to path: String) throws -> BackupSummary

    /// What went wrong with a call, in words for a client or an operator (a full disk is named as such).
    func describe(_ error: any Error) -> String
}

extension Storage {
    /// A channel's newest bursts, at most `limit`.
    public func bursts(in channel: ChannelID, limit: Int) throws -> [RecordedBurst] {
        try bursts(in: channel, since: nil, limit: limit)
    }

    /// A channel's bursts started at or after `since`, newest first, at most 1000.
    public func bursts(in channel: ChannelID, since: Date? = nil) throws -> [RecordedBurst] {
        try bursts(in: channel, since: since, limit: 1000)
    }
}
