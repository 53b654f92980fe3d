/// Time passing: overdue tickets and waiting requests, and the end of an isolation's grace.
extension ChannelOwnership {
    /// Call at ``nextDeadline`` (earlier or later is harmless; `ClusterPlane` keeps one timer there). Tickets past
    /// their deadline are answered (``FloorRequestOutcome/ownerUnreachable(_:)`` naming the channel's owner as this
    /// node sees it now, ``FloorRequestOutcome/noOwner`` if it knows none); waiting requests whose channel has an
    /// owner now go there, and those past their own deadline without one are answered
    /// ``FloorRequestOutcome/noOwner``; once the isolation grace is over, members are sent elsewhere, once per
    /// isolation (``Action/sendMembersElsewhere(to:)``).
    public mutating func timersExpired(now: PTTInstant) -> [Action] {
        let now = advance(to: now)
        var actions = expireTickets(now: now)
        actions += settleWaiting(now: now, givingUp: true)
        if let since = isolatedSince, !membersSentElsewhere, now >= since + configuration.isolationGrace {
            membersSentElsewhere = true
            actions.append(.sendMembersElsewhere(to: otherLiveNodes))
        }
        return actions
    }

    /// Answers the tickets whose deadline has come, in ticket order.
    mutating func expireTickets(now: PTTInstant) -> [Action] {
        let overdue = tickets.filter { $0.value.deadline <= now }.keys.sorted()
        return overdue.compactMap { ticket in
            guard let pending = tickets.removeValue(forKey: ticket) else { return nil }
            let owner = owners[pending.channel]
            return .answer(pending.requester, owner.map { .ownerUnreachable($0) } ?? .noOwner)
        }
    }

    /// Sends the waiting requests where their channel's owner now is; when `givingUp`, answers those past their
    /// deadline whose channel still has no owner.
    mutating func settleWaiting(now: PTTInstant, givingUp: Bool) -> [Action] {
        var actions: [Action] = []
        for channel in waiting.keys.sorted(by: { $0.description < $1.description }) {
            guard let requests = waiting[channel] else { continue }
            switch route(of: channel) {
            case .here:
                waiting[channel] = nil
                actions += requests.map { .decideLocally(channel, $0.requester) }
            case .owner(let owner):
                waiting[channel] = nil
                actions += requests.map { forward($0.requester, member: $0.member, in: channel, to: owner, now: now) }
            case .unknown:
                guard givingUp else { continue }
                let (overdue, kept) = (requests.filter { $0.deadline <= now }, requests.filter { $0.deadline > now })
                waiting[channel] = kept.isEmpty ? nil : kept
                actions += overdue.map { .answer($0.requester, .noOwner) }
            }
        }
        return actions
    }
}
