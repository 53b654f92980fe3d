extension ChannelOwnership {
    /// What the server must do, in order (`ClusterPlane.execute(_:)` carries them out).
    public enum Action: Sendable {
        /// This node owns the channel: run the request on its floor, whose event answers it. `ClusterPlane` runs
        /// `Floors.request(from:in:)` only if the requester's connection is still open.
        case decideLocally(ChannelID, Requester)
        /// Another node forwarded a request on a channel this node owns: run it on its floor with the forwarder as
        /// the remote requester; the floor event answers the forwarder's ticket.
        case decideForwarded(ChannelID, ForwardedFloorRequest)
        /// Send a member's request to the channel's owner with this ticket (`NodeMessage.floorRequest`); if the link
        /// cannot take it, call ``ChannelOwnership/forwardUndelivered(_:now:)``. (A server may instead drop a
        /// request whose requester's connection closed while it waited for a round: it then calls
        /// ``ChannelOwnership/forwardUndelivered(_:now:)`` too, and drops the answer.)
        case forward(FloorTicket, ChannelID, member: MemberID, to: String)
        /// A request forwarded here on a channel this node does not run: tell its node so (naming the owner this
        /// node knows, if any). `ClusterPlane` sends `floor-refused`, and the forwarding node answers the ticket
        /// at once (``ChannelOwnership/forwardRefused(_:by:now:)``).
        case refuse(ForwardedFloorRequest, ChannelID, owner: String?)
        /// Answer a member's request that did not run on this node's floor (exactly once per request). With a
        /// failure outcome `ClusterPlane` sends an `unavailable` error with the outcome's message;
        /// ``FloorRequestOutcome/answeredBy(_:)`` is answered by the actions of the owner's floor event.
        case answer(Requester, FloorRequestOutcome)
        /// The channel's owner changed in this node's view. `ClusterPlane` logs it, forgets the floor seen from the
        /// former owner (if it was taken, it goes idle here and members are told), and removes a floor run here
        /// when another node owns the channel; the relay's links follow.
        case ownerChanged(ChannelID, from: String?, to: String?)
        /// This node now owns the channel (a failover, or the first round): its floor starts idle. (`ClusterPlane`
        /// has nothing to do: a floor starts idle at its first use.)
        case adoptFloor(ChannelID)
        /// This node no longer owns the channel: its floor and timer go, and if it was taken it goes idle and
        /// members are told. (`ClusterPlane` does it on ``ChannelOwnership/Action/ownerChanged(_:from:to:)``.)
        case releaseFloor(ChannelID)
        /// Run a round of ownership now (`ClusterNode.roundNow()`): a request waits for it.
        case askRound
        /// The isolation grace is over and the database is still gone: close every member's connection with
        /// `unavailable`, naming these nodes (`ClusterPlane.sendMembersElsewhere()`).
        case sendMembersElsewhere(to: [String])
    }
}

extension ChannelOwnership.Action: Equatable where Requester: Equatable {}
