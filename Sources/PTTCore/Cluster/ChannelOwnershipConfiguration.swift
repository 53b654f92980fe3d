/// The bounds of a cluster node's ``ChannelOwnership``: how long a forwarded floor request and a request waiting for
/// its channel's owner may wait, how long a node cut off from the cluster's database keeps its members, and how
/// many requests may wait at once.
///
/// `ClusterPlane` (PTTServer) uses the defaults.
public struct ChannelOwnershipConfiguration: Sendable, Equatable {
    /// How long a floor request forwarded to its channel's owner waits for the owner's answer before it is answered
    /// `unavailable` (3 s by default). A request that waits for a round to name its channel's owner waits as long.
    public var ticketTimeout: Duration
    /// How long a node cut off from its database keeps its members before it sends them to other nodes: a
    /// connection that comes back at once costs them nothing (3 s by default).
    public var isolationGrace: Duration
    /// The most forwarded requests waiting at once, and apart from them the most requests waiting for an owner; one
    /// more is answered at once (10 000 by default).
    public var maxPending: Int

    /// The server's settings unless told otherwise.
    public init(ticketTimeout: Duration = .seconds(3), isolationGrace: Duration = .seconds(3), maxPending: Int = 10_000)
    {
        self.ticketTimeout = ticketTimeout
        self.isolationGrace = isolationGrace
        self.maxPending = maxPending
    }
}
