extension FloorControl {
    /// A taken floor: its holder, the members waiting for it, and a pending pre-emption.
    ///
    /// Invariant, re-established by ``reconcilePreemption(now:grace:)`` after every change of the
    /// holder or the queue: `preemption` is non-nil exactly when the head of `queue` has a strictly
    /// higher rank than the holder (of the same urgency: a more urgent one takes the floor at once).
    struct Taken: Sendable, Equatable {
        var holding: Holding
        var queue: FloorQueue
        var preemption: Preemption?

        /// A floor just granted to `candidate` at `now` (T1 and T2 start), with `queue` waiting and no
        /// pre-emption pending yet.
        init(grantedTo candidate: FloorCandidate, at now: PTTInstant, queue: FloorQueue) {
            holding = Holding(candidate: candidate, grantedAt: now, lastMediaAt: now)
            self.queue = queue
            preemption = nil
        }

        var holder: MemberID { holding.candidate.member }

        /// The queued member that takes the floor when T3 expires, nil when no pre-emption is pending.
        var pendingPreemptionBy: MemberID? { preemption == nil ? nil : queue.first?.member }

        /// A floor request by someone other than the holder: queued, re-told its position,
        /// re-queued at a new priority, or denied (see ``FloorControl/request(_:memberCount:now:)``).
        mutating func request(
            _ candidate: FloorCandidate, capacity: Int, now: PTTInstant, grace: Duration
        ) -> [FloorAction] {
            let member = candidate.member
            if let queued = queue.candidate(for: member) {
                if queued.rank == candidate.rank, let position = queue.position(of: member) {
                    return [.queued(member, position: position)]
                }
                let before = queue.positions
                queue.remove(member)
                if queue.count(atRank: candidate.rank) >= capacity {
                    return [.denied(member, .queueFull)]
                        + queue.positionUpdates(since: before)
                        + reconcilePreemption(now: now, grace: grace)
                }
                return enqueue(candidate, before: before, now: now, grace: grace)
            }
            if capacity == 0 { return [.denied(member, .anotherMemberHasPermission)] }
            if queue.count(atRank: candidate.rank) >= capacity { return [.denied(member, .queueFull)] }
            return enqueue(candidate, before: queue.positions, now: now, grace: grace)
        }

        /// Removes a queued `member` and reports the members that moved up; nil when it was not queued.
        mutating func dequeue(_ member: MemberID, now: PTTInstant, grace: Duration) -> [FloorAction]? {
            let before = queue.positions
            guard queue.remove(member) != nil else { return nil }
            return queue.positionUpdates(since: before) + reconcilePreemption(now: now, grace: grace)
        }

        /// Queues `candidate` (capacity already checked) and reports every position that changed.
        private mutating func enqueue(
            _ candidate: FloorCandidate, before: [MemberID: Int], now: PTTInstant, grace: Duration
        ) -> [FloorAction] {
            let position = queue.insert(candidate)
            return [.queued(candidate.member, position: position)]
                + queue.positionUpdates(since: before, excluding: candidate.member)
                + reconcilePreemption(now: now, grace: grace)
        }

        /// Starts T3 when the head of the queue outranks the holder and none is pending;
        /// cancels a pending T3 when nobody outranks the holder any more.
        mutating func reconcilePreemption(now: PTTInstant, grace: Duration) -> [FloorAction] {
            guard let head = queue.first, head.rank > holding.candidate.rank else {
                preemption = nil
                return []
            }
            guard preemption == nil else { return [] }
            preemption = Preemption(deadline: now + grace)
            return [.preemptionPending(holder: holder, by: head.member, grace: grace)]
        }
    }
}
