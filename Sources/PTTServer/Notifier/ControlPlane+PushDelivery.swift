import Foundation
import NIOCore
import PTTCore
import PTTProtocol

/// Handing pushes to Local Push (and app) connections: one bounded outbox per connection, drained in
/// priority order while the connection keeps up, with nothing handed over after its deadline.
extension ControlPlane {
    /// Queues a push for a connection and starts handing it over.
    func queuePush(_ item: OutboxItem<PushFrame>, to session: ControlSession) {
        var outbox = notifier.outboxes[session.id] ?? PushOutbox(capacity: configuration.wake.outboxCapacity)
        if let dropped = outbox.enqueue(item) {
            recordPush(dropped.kind, member: dropped.member, transport: .localPush, outcome: .expired,
                       reason: PushExpiry.overflow.rawValue, burst: dropped.burst)
        }
        notifier.outboxes[session.id] = outbox
        drainOutbox(of: session)
    }

    /// Writes waiting pushes to a connection while fewer than ``NotifierState/maxWritesInFlight`` of its
    /// writes are unfinished; a finished write drains again.
    func drainOutbox(of session: ControlSession) {
        guard var outbox = notifier.outboxes[session.id] else { return }
        let now = clock.now()
        while notifier.writesInFlight[session.id, default: 0] < NotifierState.maxWritesInFlight {
            let (next, expired) = outbox.next(now: now)
            for item in expired { pushExpired(item, transport: .localPush, reason: .deadline) }
            guard let item = next else { break }
            notifier.writesInFlight[session.id, default: 0] += 1
            session.send(.push(item.payload)) { [self] result in
                eventLoop.execute { self.pushWritten(item, to: session, result: result) }
            }
        }
        notifier.outboxes[session.id] = outbox.isEmpty ? nil : outbox
        armSweep()
    }

    private func pushWritten(_ item: OutboxItem<PushFrame>, to session: ControlSession, result: Result<Void, Error>) {
        if let count = notifier.writesInFlight[session.id] {
            notifier.writesInFlight[session.id] = count > 1 ? count - 1 : nil
        }
        switch result {
        case .success:
            recordPush(item.kind, member: item.member, transport: .localPush, outcome: .sent, burst: item.burst)
        case .failure(let error):
            recordPush(item.kind, member: item.member, transport: .localPush, outcome: .failed, reason: "write: \(type(of: error))", burst: item.burst)
        }
        if sessions[session.id] != nil { drainOutbox(of: session) }
    }

    /// Counts a push that was never handed over. Announcements stay stored, so only wakes and leaves count.
    func pushExpired<P>(_ item: OutboxItem<P>, transport: WakeRoute, reason: PushExpiry) {
        guard item.kind != .announce else { return }
        recordPush(item.kind, member: item.member, transport: transport, outcome: .expired, reason: reason.rawValue, burst: item.burst)
    }

    /// A connection closed: what waited for it is dropped (stored announcements stay stored).
    func notifierSessionClosed(_ session: ControlSession) {
        notifier.writesInFlight[session.id] = nil
        guard var outbox = notifier.outboxes.removeValue(forKey: session.id) else { return }
        for item in outbox.removeAll() { pushExpired(item, transport: .localPush, reason: .disconnected) }
    }

    /// The server stops: the notifier's timers are cancelled (stored announcements stay stored).
    func notifierStopped() {
        cancelSweep()
        notifier.expiryTimer?.cancel()
        notifier.expiryTimer = nil
    }

    /// Arms one timer for the earliest deadline of anything waiting, so expired pushes are dropped and
    /// counted when they expire rather than when their connection next moves.
    func armSweep() {
        let earliest = (notifier.outboxes.values.compactMap(\.nextDeadline) + [notifier.apnsOutbox.nextDeadline].compactMap { $0 }).min()
        guard let earliest else { return cancelSweep() }
        if let at = notifier.sweepAt, at <= earliest, notifier.sweepTimer != nil { return }
        notifier.sweepTimer?.cancel()
        notifier.sweepAt = earliest
        let when = NIODeadline.uptimeNanoseconds(earliest.nanoseconds) + .milliseconds(1)
        notifier.sweepTimer = eventLoop.scheduleTask(deadline: when) { [self] in
            notifier.sweepTimer = nil
            notifier.sweepAt = nil
            sweepOutboxes()
        }
    }

    private func cancelSweep() {
        notifier.sweepTimer?.cancel()
        notifier.sweepTimer = nil
        notifier.sweepAt = nil
    }

    /// Drops and counts every waiting push past its deadline.
    func sweepOutboxes() {
        let now = clock.now()
        expireWaiting(.deadline, local: { $0.expire(now: now) }, apns: { $0.expire(now: now) })
        armSweep()
    }

    /// Drops and counts the waiting pushes that `local` and `apns` take out of every connection's outbox and
    /// out of the APNs outbox.
    func expireWaiting(_ reason: PushExpiry, local: (inout PushOutbox<PushFrame>) -> [OutboxItem<PushFrame>],
                       apns: (inout PushOutbox<APNsJob>) -> [OutboxItem<APNsJob>]) {
        for id in Array(notifier.outboxes.keys) {
            for item in local(&notifier.outboxes[id]!) { pushExpired(item, transport: .localPush, reason: reason) }
            if notifier.outboxes[id]!.isEmpty { notifier.outboxes[id] = nil }
        }
        for item in apns(&notifier.apnsOutbox) { pushExpired(item, transport: .apns, reason: reason) }
    }
}
