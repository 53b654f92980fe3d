import Foundation

extension PushDispatcher {
    // MARK: Connections

    /// Queues a push for a connection and writes what it can. A full outbox drops its least urgent push.
    public mutating func queue(_ item: OutboxItem<Payload>, to connection: UInt64, now: PTTInstant) -> [Action] {
        var actions: [Action] = []
        var outbox = outboxes[connection] ?? PushOutbox(capacity: outboxCapacity)
        if let dropped = outbox.enqueue(item) {
            actions.append(.record(PushRecord(expired: dropped, transport: .localPush, reason: .overflow)))
        }
        outboxes[connection] = outbox
        drain(connection, now: now, into: &actions)
        rearmSweep(into: &actions)
        return actions
    }

    /// A write to a connection finished (`error` describes a failure): it is counted, and the connection's next
    /// pushes are written.
    public mutating func writeFinished(
        _ item: OutboxItem<Payload>, on connection: UInt64, error: String?,
        now: PTTInstant
    ) -> [Action] {
        if let count = inFlightWrites[connection] {
            inFlightWrites[connection] = count > 1 ? count - 1 : nil
        }
        var actions: [Action] = [
            .record(PushRecord(item, transport: .localPush, outcome: error == nil ? .sent : .failed, reason: error))
        ]
        drain(connection, now: now, into: &actions)
        rearmSweep(into: &actions)
        return actions
    }

    /// A connection closed: what waited for it is dropped and counted.
    public mutating func connectionClosed(_ connection: UInt64) -> [Action] {
        inFlightWrites[connection] = nil
        var actions: [Action] = []
        if var outbox = outboxes.removeValue(forKey: connection) {
            for item in outbox.removeAll() {
                expired(item, transport: .localPush, reason: .disconnected, into: &actions)
            }
        }
        rearmSweep(into: &actions)
        return actions
    }

    /// Takes a push out of every connection's outbox (a replaced announcement), without counting it.
    public mutating func withdraw(id: String) -> [Action] {
        for connection in Array(outboxes.keys) where outboxes[connection]!.remove(id: id) != nil {
            if outboxes[connection]!.isEmpty { outboxes[connection] = nil }
        }
        var actions: [Action] = []
        rearmSweep(into: &actions)
        return actions
    }

    // MARK: APNs

    /// Queues a push for APNs and sends what it can.
    public mutating func queueAPNs(
        _ item: OutboxItem<Payload>, token: [UInt8], now: PTTInstant, wallNow: Date
    ) -> [Action] {
        let job = OutboxItem(
            id: item.id, kind: item.kind, member: item.member, priority: item.priority, deadline: item.deadline,
            burst: item.burst, payload: APNsJob(token: token, payload: item.payload))
        var actions: [Action] = []
        if let dropped = apnsOutbox.enqueue(job) {
            expired(dropped, transport: .apns, reason: .overflow, into: &actions)
        }
        pumpAPNs(now: now, wallNow: wallNow, into: &actions)
        rearmSweep(into: &actions)
        return actions
    }

    /// APNs answered one push (or the request could not be made): it is counted with `outcome` and `reason`,
    /// the back-off follows `health`, and the next pushes are sent.
    public mutating func apnsAnswered(
        _ item: OutboxItem<APNsJob>, outcome: PushOutcome, reason: String?, health: APNsHealth,
        now: PTTInstant, wallNow: Date
    ) -> [Action] {
        apnsInFlight = max(0, apnsInFlight - 1)
        var actions: [Action] = [.record(PushRecord(item, transport: .apns, outcome: outcome, reason: reason))]
        switch health {
        case .delivered: backoff.recordSuccess()
        case .overloaded: backoff.recordBackOff(now: wallNow)
        case .unchanged: break
        }
        pumpAPNs(now: now, wallNow: wallNow, into: &actions)
        rearmSweep(into: &actions)
        return actions
    }

    // MARK: Expiry

    /// The sweep timer fired: every waiting push past its deadline is dropped and counted.
    public mutating func sweep(now: PTTInstant) -> [Action] {
        sweepAt = nil
        var actions: [Action] = []
        expireWaiting(.deadline, local: { $0.expire(now: now) }, apns: { $0.expire(now: now) }, into: &actions)
        rearmSweep(into: &actions)
        return actions
    }

    /// A talk burst ended: its wakes still waiting are dropped (zero expiry: never later).
    public mutating func burstEnded(_ burst: BurstID) -> [Action] {
        var actions: [Action] = []
        expireWaiting(
            .burstEnded, local: { $0.expire(burst: burst) }, apns: { $0.expire(burst: burst) }, into: &actions)
        rearmSweep(into: &actions)
        return actions
    }

    /// The server stops: the sweep timer is no longer needed (what waits is dropped with its connections).
    public mutating func stop() -> [Action] {
        guard sweepAt != nil else { return [] }
        sweepAt = nil
        return [.cancelSweep]
    }

    // MARK: Internals

    /// Writes a connection's waiting pushes while fewer than ``maxWritesInFlight`` of its writes are unfinished.
    private mutating func drain(_ connection: UInt64, now: PTTInstant, into actions: inout [Action]) {
        guard var outbox = outboxes[connection] else { return }
        while inFlightWrites[connection, default: 0] < Self.maxWritesInFlight {
            let (next, late) = outbox.next(now: now)
            for item in late { expired(item, transport: .localPush, reason: .deadline, into: &actions) }
            guard let item = next else { break }
            inFlightWrites[connection, default: 0] += 1
            actions.append(.write(item, connection: connection))
        }
        outboxes[connection] = outbox.isEmpty ? nil : outbox
    }

    /// Sends waiting APNs pushes while fewer than `apnsConcurrency` are in flight. With no APNs, or while backing
    /// off, everything waiting expires at once.
    private mutating func pumpAPNs(now: PTTInstant, wallNow: Date, into actions: inout [Action]) {
        if !apnsConfigured || backoff.isBackingOff(now: wallNow) {
            let reason: PushExpiry = apnsConfigured ? .backoff : .noRoute
            for item in apnsOutbox.removeAll() { expired(item, transport: .apns, reason: reason, into: &actions) }
            return
        }
        while apnsInFlight < apnsConcurrency {
            let (next, late) = apnsOutbox.next(now: now)
            for item in late { expired(item, transport: .apns, reason: .deadline, into: &actions) }
            guard let item = next else { break }
            apnsInFlight += 1
            actions.append(.sendAPNs(item))
        }
    }

    private mutating func expireWaiting(
        _ reason: PushExpiry, local: (inout PushOutbox<Payload>) -> [OutboxItem<Payload>],
        apns: (inout PushOutbox<APNsJob>) -> [OutboxItem<APNsJob>],
        into actions: inout [Action]
    ) {
        for connection in Array(outboxes.keys) {
            for item in local(&outboxes[connection]!) {
                expired(item, transport: .localPush, reason: reason, into: &actions)
            }
            if outboxes[connection]!.isEmpty { outboxes[connection] = nil }
        }
        for item in apns(&apnsOutbox) { expired(item, transport: .apns, reason: reason, into: &actions) }
    }

    /// Counts a push that was never handed over. Announcements stay stored, so only wakes and leaves count.
    private func expired<P>(
        _ item: OutboxItem<P>, transport: WakeRoute, reason: PushExpiry, into actions: inout [Action]
    ) {
        guard item.kind != .announce else { return }
        actions.append(.record(PushRecord(expired: item, transport: transport, reason: reason)))
    }

    /// Keeps the one sweep timer at the earliest deadline of anything waiting (an earlier armed timer stays: it
    /// finds nothing and re-arms).
    private mutating func rearmSweep(into actions: inout [Action]) {
        let earliest = ([apnsOutbox.nextDeadline] + outboxes.values.map(\.nextDeadline)).compactMap { $0 }.min()
        guard let earliest else {
            if sweepAt != nil {
                sweepAt = nil
                actions.append(.cancelSweep)
            }
            return
        }
        if let armed = sweepAt, armed <= earliest { return }
        sweepAt = earliest
        actions.append(.armSweep(at: earliest))
    }
}
