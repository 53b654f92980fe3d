extension FloorControl {
    // MARK: - Events

    /// A member asks for the floor (MCPTT "Floor Request").
    ///
    /// - A receive-only candidate is denied (``FloorDenyCause/receiveOnly``) whatever the state,
    ///   and nothing changes.
    /// - Idle: granted, unless `memberCount < 2` and the configuration forbids granting to a
    ///   single member (``FloorDenyCause/onlyOneParticipant``).
    /// - The holder asking again is re-told its remaining talk time; nothing changes.
    /// - A queued member asking again with the same priority is re-told its position; with a
    ///   different priority it is re-queued at the back of its new priority level (denied with
    ///   ``FloorDenyCause/queueFull``, and removed from the queue, when that level is full).
    /// - Otherwise it is queued, or denied when the channel does not queue or its level is full.
    ///   A queued member outranking the holder starts the pre-emption grace (T3).
    /// - A candidate more urgent than the holder (``FloorUrgency``) takes the floor at once: the holder is revoked
    ///   with ``FloorRevokeCause/emergency``, and the candidate leaves the queue if it was in it.
    public mutating func request(_ candidate: FloorCandidate, memberCount: Int, now: PTTInstant) -> [FloorAction] {
        let now = observe(now)
        let member = candidate.member
        if candidate.receiveOnly { return [.denied(member, .receiveOnly)] }
        guard var taken else {
            if memberCount < 2 && !configuration.grantToSingleMember {
                return [.denied(member, .onlyOneParticipant)]
            }
            return grant(candidate, queue: FloorQueue(), now: now)
        }
        if taken.holder == member {
            // A holder that declares an emergency keeps the floor at the new urgency: nobody less urgent takes it.
            if candidate.urgency > taken.holding.candidate.urgency {
                taken.holding.candidate.urgency = candidate.urgency
                taken.preemption = nil  // a less urgent member's pending pre-emption no longer outranks it
                state = .taken(taken)
            }
            return [.granted(member, talkTime: t2Deadline(taken.holding).since(now))]
        }
        if candidate.urgency > taken.holding.candidate.urgency { return seize(candidate, from: taken, now: now) }
        let actions = taken.request(candidate, capacity: capacity, now: now, grace: preemptionGrace)
        state = .taken(taken)
        return actions
    }

    /// A member lets go of the floor, or withdraws its queued request (MCPTT "Floor Release").
    ///
    /// The holder's release hands the floor on; a queued member gets ``FloorAction/queueCancelled(_:)``
    /// and those behind it move up; anyone else: no effect.
    public mutating func release(_ member: MemberID, now: PTTInstant) -> [FloorAction] {
        let now = observe(now)
        guard var taken else { return [] }
        if taken.holder == member {
            let actions = handOff(taken, now: now)
            // Its last packets may still be on their way: for a moment they are no floor request.
            if isIdle { releaseGrace = ReleaseGrace(member: member, until: now + configuration.releaseGrace) }
            return actions
        }
        guard let actions = taken.dequeue(member, now: now, grace: preemptionGrace) else { return [] }
        state = .taken(taken)
        return [.queueCancelled(member)] + actions
    }

    /// Media arrived from `member`. From the holder it restarts T1; from anyone else it has no effect.
    public mutating func mediaReceived(from member: MemberID, now: PTTInstant) -> [FloorAction] {
        let now = observe(now)
        if var taken, taken.holder == member {
            taken.holding.lastMediaAt = max(taken.holding.lastMediaAt, now)
            state = .taken(taken)
        }
        return []
    }

    /// The relay heard `candidate` talking (media it would forward if `candidate` held the floor).
    ///
    /// - From the holder: restarts T1, like ``mediaReceived(from:now:)``; no actions.
    /// - On an idle floor, when `implicitRequest` is set and the candidate is not receive-only: an
    ///   implicit floor request, exactly like ``request(_:memberCount:now:)`` (granted, or denied with
    ///   ``FloorDenyCause/onlyOneParticipant``).
    /// - From the member that released the floor less than ``releaseGrace`` ago, on a floor still idle: late
    ///   audio, no request. From a member whose revocation left the floor idle, while it has not been silent for
    ///   ``releaseGrace``: no request either (``ReleaseGrace/afterRevoke``).
    /// - Anything else (someone else holds the floor, implicit requests are off, a receive-only
    ///   candidate on an idle floor): no effect and no actions; in particular nobody is queued or denied.
    ///
    /// `memberCount` is the number of members of the channel, as for ``request(_:memberCount:now:)``.
    public mutating func talkHeard(
        from candidate: FloorCandidate, memberCount: Int, implicitRequest: Bool, now: PTTInstant
    ) -> [FloorAction] {
        if holder == candidate.member { return mediaReceived(from: candidate.member, now: now) }
        if var grace = releaseGrace, grace.member == candidate.member, max(now, latest) < grace.until {
            let now = observe(now)
            if grace.afterRevoke {
                // Revoked and still heard: no request until it has been silent for the grace.
                grace.until = now + configuration.releaseGrace
                releaseGrace = grace
            }
            return []
        }
        if isIdle, implicitRequest, !candidate.receiveOnly {
            return request(candidate, memberCount: memberCount, now: now)
        }
        _ = observe(now)
        return []
    }

    /// A membership ended (left, kicked, channel deleted).
    ///
    /// The holder's departure hands the floor on without telling it anything; a queued member is
    /// dropped silently and those behind it move up; anyone else: no effect.
    public mutating func memberLeft(_ member: MemberID, now: PTTInstant) -> [FloorAction] {
        let now = observe(now)
        guard var taken else { return [] }
        if taken.holder == member { return handOff(taken, now: now) }
        guard let actions = taken.dequeue(member, now: now, grace: preemptionGrace) else { return [] }
        state = .taken(taken)
        return actions
    }

    /// An operator (or a broadcast that starts, `cause` ``FloorRevokeCause/broadcast``) takes the floor away: the
    /// holder is revoked with `cause` and the floor passes on. No effect when idle.
    public mutating func revoke(now: PTTInstant, cause: FloorRevokeCause = .revokedByOperator) -> [FloorAction] {
        let now = observe(now)
        guard let taken else { return [] }
        let actions = [.revoked(taken.holder, cause)] + handOff(taken, now: now)
        graceAfterRevoke(taken.holder, now: now)
        return actions
    }

    /// A revocation left the floor idle: the revoked member's audio is no floor request until it is silent.
    private mutating func graceAfterRevoke(_ member: MemberID, now: PTTInstant) {
        if isIdle {
            releaseGrace = ReleaseGrace(member: member, until: now + configuration.releaseGrace, afterRevoke: true)
        }
    }

    /// Fires every timer due at `now` (T3, T1, T2), earliest first, each revoking the holder and
    /// handing the floor on. Returns `[]` when nothing is due.
    ///
    /// When several timers are due at the same instant, the revoke cause is chosen in the order
    /// pre-emption, talk time, end of media. A ``releaseGrace`` due by `now` ends, with no actions.
    public mutating func timersExpired(now: PTTInstant) -> [FloorAction] {
        let now = observe(now)
        if let grace = releaseGrace, grace.until <= now { releaseGrace = nil }
        var actions: [FloorAction] = []
        // Each firing removes the holder and pops the queue or idles, so this terminates;
        // the bound is a second guard.
        var firingsLeft = queue.count + 1
        while firingsLeft > 0, let taken {
            let due = dueTimer(taken)
            guard due.deadline <= now else { break }
            firingsLeft -= 1
            actions.append(.revoked(taken.holder, due.cause))
            actions += handOff(taken, now: now)
            graceAfterRevoke(taken.holder, now: now)
        }
        return actions
    }

    // MARK: - Transitions

    /// Gives the floor to `candidate` (T1 and T2 start) with `queue` waiting, then reports the queue
    /// positions that changed since `before` and a pre-emption the new holder faces.
    private mutating func grant(
        _ candidate: FloorCandidate, queue: FloorQueue, before: [MemberID: Int] = [:], now: PTTInstant
    ) -> [FloorAction] {
        releaseGrace = nil
        var taken = Taken(grantedTo: candidate, at: now, queue: queue)
        let actions =
            [.granted(candidate.member, talkTime: maxTalkTime), .taken(by: candidate.member)]
            + taken.queue.positionUpdates(since: before)
            + taken.reconcilePreemption(now: now, grace: preemptionGrace)
        state = .taken(taken)
        return actions
    }

    /// A more urgent candidate takes the floor from the holder of `taken` at once; the queue stays (without the
    /// candidate), and the former holder is not queued: it may ask again.
    private mutating func seize(_ candidate: FloorCandidate, from taken: Taken, now: PTTInstant) -> [FloorAction] {
        var queue = taken.queue
        let before = queue.positions
        queue.remove(candidate.member)
        let cause: FloorRevokeCause = candidate.urgency == .broadcast ? .broadcast : .emergency
        return [.revoked(taken.holder, cause)] + grant(candidate, queue: queue, before: before, now: now)
    }

    /// The holder of `taken` is gone: grant the head of the queue, or go idle.
    private mutating func handOff(_ taken: Taken, now: PTTInstant) -> [FloorAction] {
        var queue = taken.queue
        let before = queue.positions
        guard let next = queue.popFirst() else {
            state = .idle
            return [.idle]
        }
        return grant(next, queue: queue, before: before, now: now)
    }
}
