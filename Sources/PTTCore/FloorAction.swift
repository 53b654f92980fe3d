/// A member asking for the floor.
public struct FloorCandidate: Sendable, Equatable {
    /// Who is asking.
    public var member: MemberID
    /// Higher number = more important. A queued member with a strictly higher priority than
    /// the holder pre-empts it (after ``FloorConfiguration/preemptionGrace``).
    public var priority: Int
    /// A receive-only member is always denied with ``FloorDenyCause/receiveOnly``.
    public var receiveOnly: Bool
    /// An emergency or imminent peril ranks above every priority, and takes a less urgent holder's floor at once.
    public var urgency: FloorUrgency

    /// Creates a candidate; by default priority 0, ordinary, and allowed to talk.
    public init(member: MemberID, priority: Int = 0, receiveOnly: Bool = false, urgency: FloorUrgency = .ordinary) {
        self.member = member
        self.priority = priority
        self.receiveOnly = receiveOnly
        self.urgency = urgency
    }

    /// What orders candidates: the urgency first, then the priority. The queue keeps one level per rank.
    public var rank: Int { urgency.rankOffset + priority }
}

/// Why a floor request was refused (MCPTT "Floor Deny" reasons).
public enum FloorDenyCause: String, Sendable, Codable, CaseIterable {
    /// Someone else holds the floor and the channel does not queue (capacity 0).
    case anotherMemberHasPermission = "another-member-has-permission"
    /// The requester is alone in its channel and the configuration forbids granting then.
    case onlyOneParticipant = "only-one-participant"
    /// The requester is receive-only.
    case receiveOnly = "receive-only"
    /// The queue at the requester's priority is full.
    case queueFull = "queue-full"
    /// A broadcast holds the channel: nobody else talks there until it ends.
    case broadcast = "broadcast"
}

/// Why the floor was taken away from its holder (MCPTT "Floor Revoke" reasons).
public enum FloorRevokeCause: String, Sendable, Codable, CaseIterable {
    /// T1 expired: no media from the holder for ``FloorConfiguration/endOfMediaTimeout``.
    case endOfMedia = "end-of-media"
    /// T2 expired: the holder talked for ``FloorConfiguration/maxTalkTime``.
    case talkTimeExceeded = "talk-time-exceeded"
    /// T3 expired after a strictly-higher-priority member asked for the floor.
    case preempted = "preempted"
    /// An operator revoked the floor.
    case revokedByOperator = "revoked-by-operator"
    /// A member declaring an emergency or an imminent peril took the floor at once (``FloorUrgency``).
    case emergency = "emergency"
    /// A broadcast took the floor: its sender's, or the channel's as one of the broadcast's channels.
    case broadcast = "broadcast"
}

/// Something the I/O layer must do after a ``FloorControl`` event, in the order given.
///
/// Within one result the order is: revoke, then grant, then taken/idle, then queue position
/// updates, then a pre-emption warning.
public enum FloorAction: Sendable, Equatable, Codable {
    /// Tell that member: you may talk for `talkTime`.
    case granted(MemberID, talkTime: Duration)
    /// Tell that member its request was refused.
    case denied(MemberID, FloorDenyCause)
    /// Tell that member its 1-based queue position; sent on enqueue and whenever the position changes.
    case queued(MemberID, position: Int)
    /// Tell that member it is no longer queued (it released while waiting).
    case queueCancelled(MemberID)
    /// Warn the holder that `by` will take the floor after `grace` unless the holder releases first.
    case preemptionPending(holder: MemberID, by: MemberID, grace: Duration)
    /// Tell the (former) holder that the floor was taken away.
    case revoked(MemberID, FloorRevokeCause)
    /// Tell every member of the channel that `by` now holds the floor.
    case taken(by: MemberID)
    /// Tell every member of the channel that nobody holds the floor.
    case idle
}
