import APNs
import Foundation
import NIOCore
import PTTCore
import PTTProtocol

/// A push waiting for APNs: the token it goes to, and the JSON it carries.
struct APNsJob: Sendable {
    var token: [UInt8]
    var frame: PushFrame
}

/// Everything the notifier keeps, owned by the ``ControlPlane`` and touched only on its event loop.
///
/// The policy (who is woken, queue order, expiry, collapse ids) is in the pure ``WakePolicy``,
/// ``PushOutbox`` and ``AnnouncementBook``; this holds one outbox per connection and one for APNs.
struct NotifierState {
    var policy: WakePolicy
    var book: AnnouncementBook
    var ledger = WakeLedger<Date>()
    let startedAt: Date

    /// Pushes waiting for each connection (by session id), and how many of its writes are unfinished.
    var outboxes: [UInt64: PushOutbox<PushFrame>] = [:]
    var writesInFlight: [UInt64: Int] = [:]

    var apnsOutbox: PushOutbox<APNsJob>
    var apnsInFlight = 0
    var apnsBackoff = APNsBackoff()

    /// The timer that drops waiting pushes at their deadline, and that deadline.
    var sweepTimer: Scheduled<Void>?
    var sweepAt: PTTInstant?
    /// The timer that removes stored announcements when they expire.
    var expiryTimer: Scheduled<Void>?

    /// Unfinished socket writes per connection at most: more pushes wait in the outbox, in priority order.
    static let maxWritesInFlight = 4

    init(configuration: WakeConfiguration, stored: [StoredAnnouncement], startedAt: Date) {
        policy = WakePolicy(configuration: configuration)
        book = AnnouncementBook(perMemberLimit: configuration.storedPerMember, stored: stored)
        apnsOutbox = PushOutbox(capacity: configuration.outboxCapacity)
        self.startedAt = startedAt
    }

    /// Pushes waiting in every outbox.
    var pending: Int { outboxes.values.reduce(apnsOutbox.count) { $0 + $1.count } }
}
