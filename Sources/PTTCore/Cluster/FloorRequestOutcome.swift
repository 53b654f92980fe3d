/// How a floor request that did not run on this node's own floor was answered.
public enum FloorRequestOutcome: Hashable, Sendable {
    /// The owner's floor event answers it (granted, queued, denied, ...): the node tells the requester what the
    /// event's actions say (`ClusterPlane.followFloorEvent`).
    case answeredBy(String)
    /// The owner it was forwarded to cannot be reached, or did not answer within the ticket's timeout:
    /// `unavailable`.
    case ownerUnreachable(String)
    /// No node is known to own the channel (this node lost its database, or no round named an owner in time):
    /// `unavailable`.
    case noOwner
    /// The node it was forwarded to says it does not run the channel's floor (one of the two views was behind):
    /// `unavailable`, as soon as its `floor-refused` arrives.
    case refused(by: String)

    /// Whether the requester is answered with an error (`unavailable`) rather than by a floor event.
    public var isFailure: Bool {
        if case .answeredBy = self { return false }
        return true
    }

    /// The error's message, as members are told it; nil for ``answeredBy(_:)``.
    public var message: String? {
        switch self {
        case .answeredBy: nil
        case .ownerUnreachable(let owner):
            "the channel's floor runs on node '\(owner)', which cannot be reached now: try again"
        case .noOwner:
            "no node owns the channel's floor now (this node cannot reach the cluster's database): try again"
        case .refused(let node):
            "node '\(node)' does not run the channel's floor now (the cluster's view was changing): try again"
        }
    }
}
