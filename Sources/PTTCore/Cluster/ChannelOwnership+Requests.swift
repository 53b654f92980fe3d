/// Floor requests: this node's members', the ones other nodes forward here, and the answers to the ones it forwarded.
extension ChannelOwnership {
    /// A member connected here asks for a channel's floor (`Floors.request(_:device:from:)`). Owned here: it is
    /// decided here. Owned by another node: it is forwarded there with a new ticket, after answering the tickets
    /// that are overdue (at most ``ChannelOwnershipConfiguration/maxPending`` tickets at once; one more is answered
    /// ``FloorRequestOutcome/ownerUnreachable(_:)`` at once). No known owner: it waits for a round, asked for now,
    /// at most ``ChannelOwnershipConfiguration/ticketTimeout`` (beyond the bound it is answered
    /// ``FloorRequestOutcome/noOwner`` at once).
    public mutating func floorRequested(
        by requester: Requester, member: MemberID, in channel: ChannelID, now: PTTInstant
    ) -> [Action] {
        let now = advance(to: now)
        switch route(of: channel) {
        case .here:
            return [.decideLocally(channel, requester)]
        case .owner(let owner):
            var actions = expireTickets(now: now)
            actions.append(forward(requester, member: member, in: channel, to: owner, now: now))
            return actions
        case .unknown:
            guard waitingRequests < configuration.maxPending else { return [.answer(requester, .noOwner)] }
            waiting[channel, default: []].append(
                WaitingRequest(requester: requester, member: member, deadline: now + configuration.ticketTimeout))
            return [.askRound]
        }
    }

    /// Another node forwarded a member's request here (`NodeMessage.floorRequest`): decided here only if this node
    /// owns the channel in its current view; refused otherwise, naming the owner it knows.
    public mutating func forwardedRequestArrived(
        _ request: ForwardedFloorRequest, in channel: ChannelID, now: PTTInstant
    ) -> [Action] {
        _ = advance(to: now)
        guard ownsFloor(of: channel) else { return [.refuse(request, channel, owner: owners[channel])] }
        return [.decideForwarded(channel, request)]
    }

    /// The link to a ticket's owner could not take the request (`ClusterPlane` calls it when sending the
    /// `NodeMessage.floorRequest` fails): it is answered ``FloorRequestOutcome/ownerUnreachable(_:)`` now.
    public mutating func forwardUndelivered(_ ticket: FloorTicket, now: PTTInstant) -> [Action] {
        _ = advance(to: now)
        guard let pending = tickets.removeValue(forKey: ticket) else { return [] }
        return [.answer(pending.requester, .ownerUnreachable(pending.owner))]
    }

    /// The node a request was forwarded to says it does not own the channel: the request is answered
    /// ``FloorRequestOutcome/refused(by:)``, and a round is asked for (this node's view is behind, or the other's).
    /// `ClusterPlane` calls it when a `floor-refused` node message arrives (see ``Action/refuse(_:_:owner:)``).
    public mutating func forwardRefused(_ ticket: FloorTicket, by peer: String, now: PTTInstant) -> [Action] {
        _ = advance(to: now)
        guard let pending = tickets[ticket], pending.owner == peer else { return [] }
        tickets[ticket] = nil
        return [.answer(pending.requester, .refused(by: peer)), .askRound]
    }

    /// A node went down (`ClusterPlane` calls it when the node's link goes down): the requests forwarded to it will
    /// not be answered, and are answered ``FloorRequestOutcome/ownerUnreachable(_:)`` now rather than at their
    /// timeout. Who owns what is left to the next round.
    public mutating func nodeDown(_ peer: String, now: PTTInstant) -> [Action] {
        _ = advance(to: now)
        let lost = tickets.filter { $0.value.owner == peer }.keys.sorted()
        return lost.compactMap { ticket in
            tickets.removeValue(forKey: ticket).map { .answer($0.requester, .ownerUnreachable(peer)) }
        }
    }

    /// Gives a request a ticket and forwards it, within the bound.
    mutating func forward(
        _ requester: Requester, member: MemberID, in channel: ChannelID, to owner: String, now: PTTInstant
    ) -> Action {
        guard tickets.count < configuration.maxPending else { return .answer(requester, .ownerUnreachable(owner)) }
        let ticket = FloorTicket(nextTicket)
        nextTicket += 1
        tickets[ticket] = PendingTicket(
            requester: requester, channel: channel, owner: owner, deadline: now + configuration.ticketTimeout)
        return .forward(ticket, channel, member: member, to: owner)
    }
}
