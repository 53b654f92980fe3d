/// The events that move calls: each returns what the server must do, in order.
extension CallBook {
    /// `call`: `callerUser`'s membership `caller` calls `callee`; `calleeBusy`: the callee is in an ordinary burst
    /// now. Rings, holds (``CallConfiguration/WhileBusy/queue``) or refuses.
    public mutating func place(
        _ id: ChannelID, caller: MemberID, callerUser: String, callee: String, calleeBusy: Bool, now: PTTInstant
    ) -> [CallAction] {
        if callerUser == callee { return [.refuse(.callsItself)] }
        if isInCall(callerUser) { return [.refuse(.callerBusy)] }
        if isInCall(callee) { return [.refuse(.calleeBusy)] }
        if ringing.count >= configuration.maxRinging { return [.refuse(.tooManyRinging)] }
        let held = calleeBusy && configuration.whileBusy == .queue
        let call = Ringing(
            id: id, caller: caller, callerUser: callerUser, callee: callee, placedAt: now, held: held)
        ringing[id] = call
        return [held ? .hold(call) : .ring(call, waiting: calleeBusy)]
    }

    /// The callee's burst ended: the calls held for it ring now.
    public mutating func calleeFree(_ callee: String) -> [CallAction] {
        var actions: [CallAction] = []
        for (id, call) in ringing where call.callee == callee && call.held {
            ringing[id]?.held = false
            actions.append(.ring(ringing[id] ?? call, waiting: false))
        }
        return actions
    }

    /// No device of the callee could be told or woken: the call ends `unavailable`.
    public mutating func unreachable(_ id: ChannelID) -> [CallAction] {
        guard ringing.removeValue(forKey: id) != nil else { return [] }
        return [.end(id, .unavailable, by: nil)]
    }

    /// `call-accept` from a device of `user`: only the callee's, only while it rings (and is not held).
    public mutating func accept(_ id: ChannelID, by user: String, device: String, now: PTTInstant) -> [CallAction] {
        guard let call = ringing[id], call.callee == user, !call.held else { return [] }
        ringing[id] = nil
        connected[id] = Connected(
            id: id, callerUser: call.callerUser, callee: call.callee, lastBurstAt: now, talking: false)
        return [.connect(call, calleeDevice: device)]
    }

    /// `call-decline` from a device of `user`: only the callee's, while it rings.
    public mutating func decline(_ id: ChannelID, by user: String) -> [CallAction] {
        guard let call = ringing[id], call.callee == user else { return [] }
        ringing[id] = nil
        return [.end(id, .declined, by: nil)]
    }

    /// `call-hangup` by `user`, a side of the call: the caller gives up a ringing call, or either side ends a
    /// connected one. A callee who hangs up a ringing call declines it.
    public mutating func hangUp(_ id: ChannelID, by user: String) -> [CallAction] {
        if let call = ringing[id] {
            if call.callee == user { return decline(id, by: user) }
            guard call.callerUser == user else { return [] }
            ringing[id] = nil
            return [.end(id, .hungUp, by: user)]
        }
        guard let call = connected[id], call.callerUser == user || call.callee == user else { return [] }
        connected[id] = nil
        return [.end(id, .hungUp, by: user)]
    }

    /// An operator ends a call, ringing or connected.
    public mutating func endByOperator(_ id: ChannelID) -> [CallAction] {
        guard ringing.removeValue(forKey: id) != nil || connected.removeValue(forKey: id) != nil else { return [] }
        return [.end(id, .byOperator, by: nil)]
    }

    /// A burst began or ended on a connected call: silence is counted from the end of the last one.
    public mutating func burst(_ id: ChannelID, talking: Bool, now: PTTInstant) {
        connected[id]?.talking = talking
        connected[id]?.lastBurstAt = now
    }

    /// A call the server found connected at start (stored): silence is counted from `now`.
    public mutating func restored(_ id: ChannelID, caller: String, callee: String, now: PTTInstant) {
        connected[id] = Connected(id: id, callerUser: caller, callee: callee, lastBurstAt: now, talking: false)
    }

    /// Calls that rang out (`no-answer`) or fell silent (`silence`) by `now`.
    public mutating func timersExpired(now: PTTInstant) -> [CallAction] {
        var actions: [CallAction] = []
        for (id, call) in ringing.sorted(by: { $0.value.placedAt < $1.value.placedAt })
        where call.placedAt + configuration.ringTimeout <= now {
            ringing[id] = nil
            actions.append(.end(id, .noAnswer, by: nil))
        }
        for (id, call) in connected.sorted(by: { $0.value.lastBurstAt < $1.value.lastBurstAt })
        where !call.talking && call.lastBurstAt + configuration.idleTimeout <= now {
            connected[id] = nil
            actions.append(.end(id, .silence, by: nil))
        }
        return actions
    }
}
