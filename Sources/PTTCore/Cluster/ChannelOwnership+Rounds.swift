/// Who owns what: rounds of ownership, the loss of the database, and owners' floor events.
extension ChannelOwnership {
    /// A round of ownership read the database (`ClusterPlane.roundRead`, for each round `ClusterNode` runs):
    /// `owners` are the owners of the channels this node has members in and of those it owns, `liveNodes` the nodes
    /// running now (this one among them). A round that could not reach the database has no live node at all: it is
    /// taken as ``databaseLost(now:)``.
    ///
    /// The database is back if it was gone; each channel whose owner changed is told
    /// (``Action/ownerChanged(_:from:to:)``, then ``Action/releaseFloor(_:)`` or ``Action/adoptFloor(_:)``); then the
    /// requests waiting for an owner go where their channel's owner now is (``Action/decideLocally(_:_:)`` or
    /// ``Action/forward(_:_:member:to:)``).
    public mutating func roundRead(
        owners fresh: [ChannelID: String], liveNodes: Set<String>, now: PTTInstant
    ) -> [Action] {
        let now = advance(to: now)
        guard !liveNodes.isEmpty else { return databaseLost(now: now) }
        // The database is back, if it was gone.
        otherLiveNodes = liveNodes.subtracting([node]).sorted()
        isolatedSince = nil
        membersSentElsewhere = false
        var actions = follow(fresh)
        actions += settleWaiting(now: now, givingUp: false)
        return actions
    }

    /// This node's own database connection ended (a round with no live node, see
    /// ``roundRead(owners:liveNodes:now:)``): it can no longer prove it owns anything, so it gives up every channel
    /// at once, and knows no owner until a round reaches the database again. After the isolation grace,
    /// ``timersExpired(now:)`` sends its members elsewhere. Forwarded requests are left to their answer or timeout.
    public mutating func databaseLost(now: PTTInstant) -> [Action] {
        let now = advance(to: now)
        if isolatedSince == nil {
            isolatedSince = now
            membersSentElsewhere = false
        }
        var actions = follow([:])
        actions += settleWaiting(now: now, givingUp: false)
        return actions
    }

    /// An owner's floor event arrived from `peer` (`NodeMessage.floorEvent`, followed by
    /// `ClusterPlane.followFloorEvent`): `peer` owns the channel (a node whose view was behind learns it here, before
    /// its next round), and the request it answers, when it names one of this node's tickets, is answered by it
    /// (``FloorRequestOutcome/answeredBy(_:)``); a ticket already answered (timed out, say) is answered no more, and
    /// the event's actions then go to nobody in particular. An event claiming to come from this node itself changes
    /// nothing.
    public mutating func floorEventArrived(
        in channel: ChannelID, from peer: String, answering ticket: FloorTicket?, now: PTTInstant
    ) -> [Action] {
        _ = advance(to: now)
        guard peer != node else { return [] }
        var actions: [Action] = []
        if owners[channel] != peer { actions += changeOwner(of: channel, to: peer) }
        if let ticket, let pending = tickets.removeValue(forKey: ticket) {
            actions.append(.answer(pending.requester, .answeredBy(peer)))
        }
        return actions
    }

    /// Takes a round's owners: every channel whose owner differs is told, in a stable order.
    mutating func follow(_ fresh: [ChannelID: String]) -> [Action] {
        let changed = Set(fresh.keys).union(owners.keys).filter { fresh[$0] != owners[$0] }
        var actions: [Action] = []
        for channel in changed.sorted(by: { $0.description < $1.description }) {
            actions += changeOwner(of: channel, to: fresh[channel])
        }
        owners = fresh
        return actions
    }

    /// One channel's owner changes: a floor run here goes, a new one here starts idle.
    mutating func changeOwner(of channel: ChannelID, to new: String?) -> [Action] {
        let old = owners[channel]
        owners[channel] = new
        var actions: [Action] = [.ownerChanged(channel, from: old, to: new)]
        if old == node { actions.append(.releaseFloor(channel)) }
        if new == node { actions.append(.adoptFloor(channel)) }
        return actions
    }
}
