/// The floor control of one channel: who may talk, who waits, and when the talker loses the floor.
///
/// A pure state machine in MCPTT terms. It never reads a clock and performs no I/O: every event
/// is a `mutating func` taking `now` and returning the ``FloorAction``s the I/O layer must carry
/// out, in order. The I/O layer also schedules a timer for ``nextDeadline`` and calls
/// ``timersExpired(now:)`` when it fires.
///
/// Timers, while the floor is taken:
/// - T1 (``FloorConfiguration/endOfMediaTimeout``): from the grant and from each of the holder's
///   media packets; on expiry the holder is revoked with ``FloorRevokeCause/endOfMedia``.
/// - T2 (``FloorConfiguration/maxTalkTime``): from the grant; on expiry the holder is revoked with
///   ``FloorRevokeCause/talkTimeExceeded``, whatever media arrives.
/// - T3 (``FloorConfiguration/preemptionGrace``): from the moment a queued member first outranks
///   the holder; on expiry the holder is revoked with ``FloorRevokeCause/preempted``.
///
/// After every revoke, release or departure of the holder the floor passes to the head of the
/// queue, or becomes idle. The machine never traps: unknown members are ignored, and an instant
/// earlier than one already seen is treated as that instant.
public struct FloorControl: Sendable {
    /// The current holder and its timer origins.
    struct Holding: Sendable, Equatable {
        var candidate: FloorCandidate
        var grantedAt: PTTInstant
        var lastMediaAt: PTTInstant
    }

    /// The configuration this machine was created with.
    public private(set) var configuration: FloorConfiguration

    private var holding: Holding?
    private var waiting = FloorQueue()
    /// When T3 expires, if a pre-emption is pending. Invariant: non-nil only while the floor is
    /// taken and the head of the queue has a strictly higher priority than the holder.
    private var preemptionDeadline: PTTInstant?
    /// The latest instant seen; earlier instants are treated as this one.
    private var latest: PTTInstant = .zero

    /// Creates an idle floor.
    public init(configuration: FloorConfiguration = .init()) {
        self.configuration = configuration
    }

    // MARK: - Reading

    /// Who holds the floor, nil when idle.
    public var holder: MemberID? { holding?.candidate.member }

    /// Whether nobody holds the floor.
    public var isIdle: Bool { holding == nil }

    /// The waiting candidates in grant order: higher priority first, FIFO within a priority.
    public var queue: [FloorCandidate] { waiting.entries }

    /// The 1-based queue position of `member`, nil when it is not queued.
    public func position(of member: MemberID) -> Int? { waiting.position(of: member) }

    /// The earliest pending timer (T1, T2 or T3), nil when idle.
    ///
    /// The I/O layer schedules a timer for it and calls ``timersExpired(now:)`` when it fires.
    public var nextDeadline: PTTInstant? {
        guard let holding else { return nil }
        var deadline = min(t1Deadline(holding), t2Deadline(holding))
        if let preemptionDeadline { deadline = min(deadline, preemptionDeadline) }
        return deadline
    }

    /// How long until T2 revokes the holder, nil when idle.
    public func talkTimeLeft(now: PTTInstant) -> Duration? {
        guard let holding else { return nil }
        return t2Deadline(holding).since(max(now, latest))
    }

    /// A read-only picture of the floor at `now`.
    public func snapshot(now: PTTInstant) -> FloorSnapshot {
        FloorSnapshot(
            holder: holder,
            holderPriority: holding?.candidate.priority,
            talkTimeLeft: talkTimeLeft(now: now),
            queue: waiting.entries.map(\.member),
            pendingPreemptionBy: preemptionDeadline == nil ? nil : waiting.first?.member
        )
    }

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
    public mutating func request(_ candidate: FloorCandidate, memberCount: Int, now: PTTInstant) -> [FloorAction] {
        let now = observe(now)
        let member = candidate.member
        if candidate.receiveOnly { return [.denied(member, .receiveOnly)] }
        guard let holding else {
            if memberCount < 2 && !configuration.grantToSingleMember {
                return [.denied(member, .onlyOneParticipant)]
            }
            return grant(candidate, now: now)
        }
        if holding.candidate.member == member {
            return [.granted(member, talkTime: t2Deadline(holding).since(now))]
        }
        if let queued = waiting.candidate(for: member) {
            if queued.priority == candidate.priority, let position = waiting.position(of: member) {
                return [.queued(member, position: position)]
            }
            let before = waiting.positions
            waiting.remove(member)
            if waiting.count(atPriority: candidate.priority) >= capacity {
                return [.denied(member, .queueFull)]
                    + waiting.positionUpdates(since: before)
                    + reconcilePreemption(now: now)
            }
            return enqueue(candidate, before: before, now: now)
        }
        if capacity == 0 { return [.denied(member, .anotherMemberHasPermission)] }
        if waiting.count(atPriority: candidate.priority) >= capacity { return [.denied(member, .queueFull)] }
        return enqueue(candidate, before: waiting.positions, now: now)
    }

    /// A member lets go of the floor, or withdraws its queued request (MCPTT "Floor Release").
    ///
    /// The holder's release hands the floor on; a queued member gets ``FloorAction/queueCancelled(_:)``
    /// and those behind it move up; anyone else: no effect.
    public mutating func release(_ member: MemberID, now: PTTInstant) -> [FloorAction] {
        let now = observe(now)
        if holder == member { return handOff(now: now) }
        let before = waiting.positions
        guard waiting.remove(member) != nil else { return [] }
        return [.queueCancelled(member)] + waiting.positionUpdates(since: before) + reconcilePreemption(now: now)
    }

    /// Media arrived from `member`. From the holder it restarts T1; from anyone else it has no effect.
    public mutating func mediaReceived(from member: MemberID, now: PTTInstant) -> [FloorAction] {
        let now = observe(now)
        if var current = holding, current.candidate.member == member {
            current.lastMediaAt = max(current.lastMediaAt, now)
            holding = current
        }
        return []
    }

    /// A membership ended (left, kicked, channel deleted).
    ///
    /// The holder's departure hands the floor on without telling it anything; a queued member is
    /// dropped silently and those behind it move up; anyone else: no effect.
    public mutating func memberLeft(_ member: MemberID, now: PTTInstant) -> [FloorAction] {
        let now = observe(now)
        if holder == member { return handOff(now: now) }
        let before = waiting.positions
        guard waiting.remove(member) != nil else { return [] }
        return waiting.positionUpdates(since: before) + reconcilePreemption(now: now)
    }

    /// An operator takes the floor away: the holder is revoked with
    /// ``FloorRevokeCause/revokedByOperator`` and the floor passes on. No effect when idle.
    public mutating func revoke(now: PTTInstant) -> [FloorAction] {
        let now = observe(now)
        guard let holder else { return [] }
        return [.revoked(holder, .revokedByOperator)] + handOff(now: now)
    }

    /// Fires every timer due at `now` (T3, T1, T2), earliest first, each revoking the holder and
    /// handing the floor on. Returns `[]` when nothing is due.
    ///
    /// When several timers are due at the same instant, the revoke cause is chosen in the order
    /// pre-emption, talk time, end of media.
    public mutating func timersExpired(now: PTTInstant) -> [FloorAction] {
        let now = observe(now)
        var actions: [FloorAction] = []
        // Each firing removes the holder and pops the queue or idles, so this terminates;
        // the bound is a second guard.
        var firingsLeft = waiting.count + 1
        while firingsLeft > 0, let holding, let due = dueTimer(holding), due.deadline <= now {
            firingsLeft -= 1
            actions.append(.revoked(holding.candidate.member, due.cause))
            actions += handOff(now: now)
        }
        return actions
    }

    // MARK: - Internals

    private var capacity: Int { max(0, configuration.queueCapacityPerPriority) }
    private var endOfMediaTimeout: Duration { max(.zero, configuration.endOfMediaTimeout) }
    private var maxTalkTime: Duration { max(.zero, configuration.maxTalkTime) }
    private var preemptionGrace: Duration { max(.zero, configuration.preemptionGrace) }

    private func t1Deadline(_ holding: Holding) -> PTTInstant {
        max(holding.grantedAt, holding.lastMediaAt) + endOfMediaTimeout
    }

    private func t2Deadline(_ holding: Holding) -> PTTInstant {
        holding.grantedAt + maxTalkTime
    }

    /// The earliest timer with its revoke cause; ties go to pre-emption, then talk time, then media.
    private func dueTimer(_ holding: Holding) -> (deadline: PTTInstant, cause: FloorRevokeCause)? {
        var timers: [(deadline: PTTInstant, cause: FloorRevokeCause)] = []
        if let preemptionDeadline { timers.append((preemptionDeadline, .preempted)) }
        timers.append((t2Deadline(holding), .talkTimeExceeded))
        timers.append((t1Deadline(holding), .endOfMedia))
        var best = timers.first
        for timer in timers.dropFirst() where timer.deadline < (best?.deadline ?? timer.deadline) { best = timer }
        return best
    }

    /// Clamps `now` to never go backwards, and records it.
    private mutating func observe(_ now: PTTInstant) -> PTTInstant {
        latest = max(latest, now)
        return latest
    }

    /// Gives the floor to `candidate` and starts T1 and T2.
    private mutating func grant(_ candidate: FloorCandidate, now: PTTInstant) -> [FloorAction] {
        holding = Holding(candidate: candidate, grantedAt: now, lastMediaAt: now)
        preemptionDeadline = nil
        return [.granted(candidate.member, talkTime: maxTalkTime), .taken(by: candidate.member)]
    }

    /// Queues `candidate` (capacity already checked) and reports every position that changed.
    private mutating func enqueue(_ candidate: FloorCandidate, before: [MemberID: Int], now: PTTInstant) -> [FloorAction] {
        let position = waiting.insert(candidate)
        return [.queued(candidate.member, position: position)]
            + waiting.positionUpdates(since: before, excluding: candidate.member)
            + reconcilePreemption(now: now)
    }

    /// The holder is gone: grant the head of the queue, or go idle.
    private mutating func handOff(now: PTTInstant) -> [FloorAction] {
        preemptionDeadline = nil
        let before = waiting.positions
        guard let next = waiting.popFirst() else {
            holding = nil
            return [.idle]
        }
        return grant(next, now: now) + waiting.positionUpdates(since: before) + reconcilePreemption(now: now)
    }

    /// Starts T3 when the head of the queue outranks the holder and none is pending;
    /// cancels a pending T3 when nobody outranks the holder any more.
    private mutating func reconcilePreemption(now: PTTInstant) -> [FloorAction] {
        guard let holding, let head = waiting.first, head.priority > holding.candidate.priority else {
            preemptionDeadline = nil
            return []
        }
        guard preemptionDeadline == nil else { return [] }
        preemptionDeadline = now + preemptionGrace
        return [.preemptionPending(holder: holding.candidate.member, by: head.member, grace: preemptionGrace)]
    }
}

/// A read-only picture of a channel's floor, for status pages and the control API.
public struct FloorSnapshot: Sendable, Equatable {
    /// Who holds the floor, nil when idle.
    public var holder: MemberID?
    /// The priority the holder was granted with, nil when idle.
    public var holderPriority: Int?
    /// How long until T2 revokes the holder, nil when idle.
    public var talkTimeLeft: Duration?
    /// The queue in grant order: element `i` is at position `i + 1`.
    public var queue: [MemberID]
    /// The queued member that will pre-empt the holder when T3 expires, if a pre-emption is pending.
    public var pendingPreemptionBy: MemberID?

    /// Creates a snapshot.
    public init(
        holder: MemberID? = nil,
        holderPriority: Int? = nil,
        talkTimeLeft: Duration? = nil,
        queue: [MemberID] = [],
        pendingPreemptionBy: MemberID? = nil
    ) {
        self.holder = holder
        self.holderPriority = holderPriority
        self.talkTimeLeft = talkTimeLeft
        self.queue = queue
        self.pendingPreemptionBy = pendingPreemptionBy
    }
}
