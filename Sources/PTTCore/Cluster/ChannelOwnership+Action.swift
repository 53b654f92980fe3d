extension ChannelOwnership {
    /// What the server must do, in order.
    public enum Action: Sendable {
        /// This node owns the channel: run the request on its floor (`Floors.request(from:in:)`), if the requester's
        /// connection is still open (`ControlPlane.settleAwaitingOwner` skips closed ones). Its floor answers it.
        case decideLocally(ChannelID, Requester)
        /// Another node forwarded a request on a channel this node owns: run it on its floor with the forwarder as
        /// the remote requester (`ControlPlane.nodeMessage`, `.floorRequest`); the floor event answers the ticket.
        case decideForwarded(ChannelID, ForwardedFloorRequest)
        /// Send a member's request to the channel's owner with this ticket (`NodeMessage.floorRequest`); if the link
        /// cannot take it, call ``ChannelOwnership/forwardUndelivered(_:now:)``. (A request that waited for a round
        /// whose requester's connection has closed since need not be sent: today's server drops it; call
        /// ``ChannelOwnership/forwardUndelivered(_:now:)`` then, and drop the answer.)
        case forward(FloorTicket, ChannelID, member: MemberID, to: String)
        /// A request forwarded here on a channel this node does not run: tell its node so (naming the owner this
        /// node knows, if any). Today's server only logs it (`ControlPlane.owns(_:asked:)`): its ticket then times
        /// out on the forwarding node.
        case refuse(ForwardedFloorRequest, ChannelID, owner: String?)
        /// Answer a member's request that did not run on this node's floor (exactly once per request).
        case answer(Requester, FloorRequestOutcome)
        /// The channel's owner changed in this node's view (log it; the relay's links follow;
        /// `ControlPlane.ownerChanged`). When `from` was another node or none, the floor seen from it is forgotten
        /// and, if it was taken, goes idle here and members are told.
        case ownerChanged(ChannelID, from: String?, to: String?)
        /// This node now owns the channel (a failover, or the first round): its floor starts idle.
        case adoptFloor(ChannelID)
        /// This node no longer owns the channel: its floor and timer go, and if it was taken it goes idle and
        /// members are told (`ControlPlane.ownerChanged`, `Floors.remove`).
        case releaseFloor(ChannelID)
        /// Run a round of ownership now (`ClusterNode.roundNow`): a request waits for it.
        case askRound
        /// The isolation grace is over and the database is still gone: close every member's connection with
        /// `unavailable`, naming these nodes (`ControlPlane.sendMembersElsewhere`).
        case sendMembersElsewhere(to: [String])
    }
}

extension ChannelOwnership.Action: Equatable where Requester: Equatable {}
