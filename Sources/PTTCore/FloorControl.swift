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
    /// Where the floor stands. There is no queue and no pending pre-emption without a holder:
    /// a request on an idle floor is granted or denied, never queued, and the floor only goes idle
    /// when the queue is empty.
    enum State: Sendable, Equatable {
        /// Nobody holds the floor and nobody waits for it.
        case idle
        /// Somebody holds the floor; others may wait for it.
        case taken(Taken)
    }

    /// The current holder and its timer origins.
    struct Holding: Sendable, Equatable {
        var candidate: FloorCandidate
        var grantedAt: PTTInstant
        var lastMediaAt: PTTInstant
    }

    /// A pending pre-emption: T3 runs.
    struct Preemption: Sendable, Equatable {
        /// When T3 expires and the holder is revoked with ``FloorRevokeCause/preempted``.
        var deadline: PTTInstant
    }

    /// After a voluntary release to an idle floor, for this long the former holder's late audio (packets its
    /// release overtook, reports already on their way) is not an implicit floor request; the relay forwards those
    /// packets meanwhile (Docs/PROTOCOL.md 7.5, 8.7). The default of ``FloorConfiguration/releaseGrace``, which
    /// each floor uses.
    public static let releaseGrace: Duration = .milliseconds(500)

    /// The former holder whose late audio is not a floor request, and until when (see ``releaseGrace``).
    ///
    /// After a revocation that leaves the floor idle (an operator's, T1, T2) the revoked member gets one too,
    /// `afterRevoke`: its audio, late or still coming (its app has not let go yet), is no floor request until it has
    /// been silent for ``FloorControl/releaseGrace``, so that an operator's revoke is not undone by the packets that
    /// follow it. Unlike a release's, its audio is not forwarded meanwhile.
    public struct ReleaseGrace: Sendable, Equatable {
        /// Who released the floor, or lost it.
        public var member: MemberID
        /// The end of the grace.
        public var until: PTTInstant
        /// The member lost the floor to a revocation: each of its reports moves `until` on.
        public var afterRevoke = false

        public init(member: MemberID, until: PTTInstant, afterRevoke: Bool = false) {
            self.member = member
            self.until = until
            self.afterRevoke = afterRevoke
        }
    }

    /// The configuration this machine was created with.
    public private(set) var configuration: FloorConfiguration

    /// Set when the holder released the floor and nobody took it since, until the grace is over (a timer for
    /// `until` clears it, ``timersExpired(now:)``).
    public internal(set) var releaseGrace: ReleaseGrace?

    /// Set only by the events (`FloorControl+Events.swift`).
    var state: State = .idle
    /// The latest instant seen; earlier instants are treated as this one.
    var latest: PTTInstant = .zero

    /// Creates an idle floor.
    public init(configuration: FloorConfiguration = .init()) {
        self.configuration = configuration
    }

    /// Takes `configuration` (a reload's) for the grants to come, if the floor is idle: an idle floor kept for a
    /// ``releaseGrace`` is the same as a new one. A taken floor keeps its own until it goes idle; returns whether
    /// the configuration was taken.
    @discardableResult
    public mutating func adopt(_ configuration: FloorConfiguration) -> Bool {
        guard isIdle else { return false }
        self.configuration = configuration
        return true
    }

    // MARK: - Reading

    /// Who holds the floor, nil when idle.
    public var holder: MemberID? { taken?.holder }

    /// Whether nobody holds the floor.
    public var isIdle: Bool { state == .idle }

    /// The waiting candidates in grant order: higher priority first, FIFO within a priority.
    public var queue: [FloorCandidate] { taken?.queue.entries ?? [] }

    /// The 1-based queue position of `member`, nil when it is not queued.
    public func position(of member: MemberID) -> Int? { taken?.queue.position(of: member) }

    /// The earliest pending timer (T1, T2 or T3), nil when idle.
    ///
    /// The I/O layer schedules a timer for it and calls ``timersExpired(now:)`` when it fires.
    public var nextDeadline: PTTInstant? {
        guard let taken else { return nil }
        var deadline = min(t1Deadline(taken.holding), t2Deadline(taken.holding))
        if let preemption = taken.preemption { deadline = min(deadline, preemption.deadline) }
        return deadline
    }

    /// How long until T2 revokes the holder, nil when idle.
    public func talkTimeLeft(now: PTTInstant) -> Duration? {
        guard let taken else { return nil }
        return t2Deadline(taken.holding).since(max(now, latest))
    }

    /// A read-only picture of the floor at `now`.
    public func snapshot(now: PTTInstant) -> FloorSnapshot {
        FloorSnapshot(
            holder: holder,
            holderPriority: taken?.holding.candidate.priority,
            holderUrgency: taken?.holding.candidate.urgency,
            talkTimeLeft: talkTimeLeft(now: now),
            queue: queue.map(\.member),
            pendingPreemptionBy: taken?.pendingPreemptionBy
        )
    }

    // MARK: - Internals

    /// The taken floor, nil when idle.
    var taken: Taken? {
        if case .taken(let taken) = state { taken } else { nil }
    }

    var capacity: Int { max(0, configuration.queueCapacityPerPriority) }
    var endOfMediaTimeout: Duration { max(.zero, configuration.endOfMediaTimeout) }
    var maxTalkTime: Duration { max(.zero, configuration.maxTalkTime) }
    var preemptionGrace: Duration { max(.zero, configuration.preemptionGrace) }

    func t1Deadline(_ holding: Holding) -> PTTInstant {
        max(holding.grantedAt, holding.lastMediaAt) + endOfMediaTimeout
    }

    func t2Deadline(_ holding: Holding) -> PTTInstant {
        holding.grantedAt + maxTalkTime
    }

    /// The earliest timer of a taken floor with its revoke cause; ties go to pre-emption, then talk
    /// time, then media.
    func dueTimer(_ taken: Taken) -> (deadline: PTTInstant, cause: FloorRevokeCause) {
        var timers: [(deadline: PTTInstant, cause: FloorRevokeCause)] = []
        if let preemption = taken.preemption { timers.append((preemption.deadline, .preempted)) }
        timers.append((t2Deadline(taken.holding), .talkTimeExceeded))
        timers.append((t1Deadline(taken.holding), .endOfMedia))
        var best = timers[0]
        for timer in timers.dropFirst() where timer.deadline < best.deadline { best = timer }
        return best
    }

    /// Clamps `now` to never go backwards, and records it.
    mutating func observe(_ now: PTTInstant) -> PTTInstant {
        latest = max(latest, now)
        return latest
    }
}
