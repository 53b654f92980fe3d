/// A read-only picture of a channel's floor, for status pages and the control API.
public struct FloorSnapshot: Sendable, Equatable {
    /// Who holds the floor, nil when idle.
    public var holder: MemberID?
    /// The priority the holder was granted with, nil when idle.
    public var holderPriority: Int?
    /// The urgency the holder was granted with (``FloorUrgency``), nil when idle.
    public var holderUrgency: FloorUrgency?
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
        holderUrgency: FloorUrgency? = nil,
        talkTimeLeft: Duration? = nil,
        queue: [MemberID] = [],
        pendingPreemptionBy: MemberID? = nil
    ) {
        self.holder = holder
        self.holderPriority = holderPriority
        self.holderUrgency = holderUrgency
        self.talkTimeLeft = talkTimeLeft
        self.queue = queue
        self.pendingPreemptionBy = pendingPreemptionBy
    }
}
