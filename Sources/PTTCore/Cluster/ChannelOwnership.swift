/// One cluster node's view of who runs each channel's floor, and the floor requests it cannot decide itself: a pure
/// state machine, with no I/O and no clock of its own.
///
/// Each channel of a cluster is owned by one node (the one whose database session holds the channel's advisory
/// lock), and only the owner runs its floor. This machine takes what the node learns, as `mutating func`s taking
/// `now`, and returns the ``Action``s the server carries out, in order:
/// - a round of ownership read the owners and the live nodes (``roundRead(owners:liveNodes:now:)``), or the node's
///   database connection ended (``databaseLost(now:)``);
/// - a member connected here asks for a floor (``floorRequested(by:member:in:now:)``): decided here when this node
///   owns the channel, forwarded with a ``FloorTicket`` when another does, held for the next round when no owner is
///   known;
/// - another node forwarded a request here (``forwardedRequestArrived(_:in:now:)``): decided only if this node owns
///   the channel, refused otherwise;
/// - an owner's floor event (``floorEventArrived(in:from:answering:now:)``), a refusal
///   (``forwardRefused(_:by:now:)``), a forward that could not be sent (``forwardUndelivered(_:now:)``), a node going
///   down (``nodeDown(_:now:)``), time passing (``timersExpired(now:)``).
///
/// In the server, `ClusterPlane` (PTTServer) feeds it what the node learns and carries out its actions
/// (`ClusterPlane.execute(_:)`).
///
/// Guarantees (held by `ChannelOwnershipWalkTests`, a seeded simulation of 2–4 nodes): a node decides a floor only
/// on a channel it owns in its current view; two nodes connected to the database never both think they own a
/// channel; every forwarded request and every request waiting for an owner is answered exactly once (by the owner,
/// a refusal, a failure to send, its node going down, or its timeout), no later than its timeout.
///
/// The requester is whatever the server needs to answer a member (its connection and the request's `re`), carried
/// untouched.
public struct ChannelOwnership<Requester: Sendable>: Sendable {
    /// A request forwarded to an owner, until its answer or its deadline.
    struct PendingTicket: Sendable {
        var requester: Requester
        var channel: ChannelID
        /// The node it was forwarded to.
        var owner: String
        var deadline: PTTInstant
    }

    /// A request held until a round names its channel's owner, or its deadline.
    struct WaitingRequest: Sendable {
        var requester: Requester
        var member: MemberID
        var deadline: PTTInstant
    }

    /// This node's name.
    public let node: String
    /// The timeouts and bounds.
    public let configuration: ChannelOwnershipConfiguration

    /// The owner of each channel as the last round read it, or as an owner's floor event since showed it.
    public internal(set) var owners: [ChannelID: String] = [:]
    /// The other live nodes, as the last round that reached the database read them: where members are sent when
    /// this node is cut off.
    public internal(set) var otherLiveNodes: [String] = []
    /// Since when this node has been without its database connection; nil while connected.
    public internal(set) var isolatedSince: PTTInstant?
    /// Whether this node's members were sent elsewhere in the current isolation.
    var membersSentElsewhere = false
    /// Forwarded requests waiting for their owner's answer.
    var tickets: [FloorTicket: PendingTicket] = [:]
    var nextTicket: UInt64 = 1
    /// Requests waiting for a round to name their channel's owner, in arrival order.
    var waiting: [ChannelID: [WaitingRequest]] = [:]
    /// The latest instant seen; earlier instants are treated as this one.
    var latest: PTTInstant = .zero

    /// A node that knows no owner yet and waits for nothing.
    public init(node: String, configuration: ChannelOwnershipConfiguration = .init()) {
        self.node = node
        self.configuration = configuration
    }

    // MARK: What the node knows

    /// Where a channel's floor runs as this node sees it: where releases, talk reports and revokes go. A talk
    /// report on a channel with no known owner asks for a round and is dropped (`ClusterPlane.talkHeard`).
    public func route(of channel: ChannelID) -> FloorRoute {
        guard let owner = owners[channel] else { return .unknown }
        return owner == node ? .here : .owner(owner)
    }

    /// Whether this node runs the channel's floor: only then may it decide it (`ClusterPlane` checks it before it
    /// runs a release, a talk report or a revoke another node sends).
    public func ownsFloor(of channel: ChannelID) -> Bool { owners[channel] == node }

    /// The channels this node owns in its current view.
    public var ownedChannels: Set<ChannelID> { Set(owners.compactMap { $0.value == node ? $0.key : nil }) }

    /// The forwarded requests waiting for an answer.
    public var pendingTickets: Int { tickets.count }

    /// The requester of a forwarded request still waiting for its answer.
    public func requester(of ticket: FloorTicket) -> Requester? { tickets[ticket]?.requester }

    /// The requests waiting for a round to name their channel's owner.
    public var waitingRequests: Int { waiting.values.reduce(0) { $0 + $1.count } }

    /// The next instant at which ``timersExpired(now:)`` has something to do: a ticket's or a waiting request's
    /// deadline, or the end of the isolation grace; nil when nothing waits.
    public var nextDeadline: PTTInstant? {
        var earliest = tickets.values.lazy.map(\.deadline).min()
        for requests in waiting.values {
            for request in requests { earliest = min(earliest ?? request.deadline, request.deadline) }
        }
        if let since = isolatedSince, !membersSentElsewhere {
            let end = since + configuration.isolationGrace
            earliest = min(earliest ?? end, end)
        }
        return earliest
    }

    /// The other live nodes this node sends its members to, once it has been cut off from its database for the
    /// isolation grace; nil while it serves them (the server then refuses a new `hello` with `unavailable`,
    /// naming them: `ClusterPlane.sendsMembersElsewhere`).
    public func sendsMembersElsewhere(now: PTTInstant) -> [String]? {
        guard let since = isolatedSince, max(now, latest).since(since) >= configuration.isolationGrace else {
            return nil
        }
        return otherLiveNodes
    }

    /// Takes `now`, or the latest instant seen if `now` is earlier.
    mutating func advance(to now: PTTInstant) -> PTTInstant {
        latest = max(latest, now)
        return latest
    }
}
