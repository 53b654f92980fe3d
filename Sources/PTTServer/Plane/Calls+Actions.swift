import Foundation
import PTTCore
import PTTProtocol

/// What a call's ring, connection and end do: frames to the sides' devices, wakes, and the call channel's writes.
extension Calls {
    /// The callee's devices, each with its group memberships (oldest first): a call rings devices, not memberships.
    func calleeDevices(_ user: String) -> [String: [Membership]] {
        let directory = plane.directory
        var devices: [String: [Membership]] = [:]
        for membership in directory.memberships.values
        where membership.user == user && directory.channels[membership.channel]?.kind == .group {
            devices[membership.device, default: []].append(membership)
        }
        return devices.mapValues { $0.sorted { $0.joinedAt < $1.joinedAt } }
    }

    /// Tells each connected device of the callee (`call-incoming`) and wakes each other one through the newest of
    /// its memberships that has a wake route (its iOS channel: the push shows the caller); with neither, the call
    /// ends `unavailable`.
    func ring(_ call: CallBook.Ringing, waiting: Bool) -> [PlaneEffect] {
        guard let info = infos[call.id] else { return [] }
        var effects: [PlaneEffect] = []
        for (_, memberships) in calleeDevices(call.callee) {
            guard let any = memberships.first else { continue }
            if let session = plane.sessions.appSession(of: any) {
                effects.append(
                    .send(.callIncoming(CallRinging(call: info, waiting: waiting ? true : nil)), to: session))
            } else if let woken = memberships.last(where: { plane.notifier.wakeRoute($0) != .none }) {
                effects.append(.ringCall(info, woken))
            }
        }
        guard !effects.isEmpty else { return run(book.unreachable(call.id)) }
        return effects
    }

    /// The callee accepted on `calleeDevice`: the call's channel and both memberships are stored in one write, then
    /// each side gets `call-connected` with its own media, and the callee's other devices `call-ended`.
    func connect(_ call: CallBook.Ringing, calleeDevice: String, re: Int?, session: ControlSession?) {
        guard let info = infos[call.id] else { return }
        let calleeMembership = calleeDevices(call.callee)[calleeDevice]?.last
        plane.writes.submit(
            DirectoryOperation(
                plan: { directory in
                    guard let caller = directory.memberships[call.caller] else {
                        throw JoinPlan.Refusal(
                            code: .unavailable, message: "the caller left the channel it called from")
                    }
                    var random = SecureRandom()
                    let plan = try CallPlan.make(
                        call.id,
                        caller: CallPlan.Side(
                            user: caller.user, device: caller.device, displayName: caller.displayName,
                            mediaSuite: caller.mediaSuite),
                        callee: CallPlan.Side(
                            user: call.callee, device: calleeDevice, displayName: calleeMembership?.displayName,
                            mediaSuite: calleeMembership?.mediaSuite ?? .default),
                        in: &directory, now: self.context.wallClock.now(), random: &random)
                    return PlannedChange(
                        changes: plan.changes,
                        stored: { self.plane.run(self.connected(plan, info: info, re: re, callee: session)) },
                        failed: { self.failed(call.id, $0, re: re, session: session) })
                },
                refused: { self.failed(call.id, $0, re: re, session: session) }))
    }

    private func failed(_ id: ChannelID, _ error: any Error, re: Int?, session: ControlSession?) {
        plane.logger.error("a call could not connect", metadata: ["call": "\(id)", "error": "\(error)"])
        if let session {
            plane.run(PlaneEffect.refused(session, re: re, error, storing: "call", storage: plane.storage))
        }
        plane.run(run(book.endByOperator(id)))
    }

    private func connected(_ plan: CallPlan, info: CallInfo, re: Int?, callee session: ControlSession?) -> [PlaneEffect]
    {
        // Ended while its channel was being stored (hung up, an operator): the channel goes again.
        guard infos[plan.channel.id] != nil else { return removeChannel(plan.channel.id) }
        context.metrics.calls.connected.increment()
        plane.logger.info(
            "call connected",
            metadata: [
                "call": "\(plan.channel.id)", "caller": "\(plan.caller.user)",
                "callee": "\(plan.callee.user)", "device": "\(plan.callee.device)",
            ])
        let channel = ChannelInfo(plan.channel)
        let floor = plane.floors.state(of: plan.channel.id)
        var effects: [PlaneEffect] = []
        let sides: [(Membership, ControlSession?)] = [(plan.caller, nil), (plan.callee, session)]
        for (membership, answering) in sides {
            let connected = CallConnected(
                re: answering == nil ? nil : re, call: info, channel: channel, member: MemberInfo(membership),
                media: MediaParameters(
                    membership, configuration: context.configuration, port: plane.relayLink.mediaPort),
                floor: floor)
            guard let to = answering ?? plane.sessions.appSession(of: membership) else { continue }
            effects.append(.send(.callConnected(connected), to: to))
        }
        let ended = CallEnded(call: info, reason: .answeredElsewhere)
        for (device, memberships) in calleeDevices(plan.callee.user) where device != plan.callee.device {
            guard let any = memberships.first, let other = plane.sessions.appSession(of: any) else { continue }
            effects.append(.send(.callEnded(ended), to: other))
        }
        return effects
    }

    /// A call ends: both sides are told (every device of the callee while it rang), and a connected call's channel
    /// is removed.
    func end(
        _ id: ChannelID, reason: CallEnd, by: String?, re: Int?, answering session: ControlSession?
    )
        -> [PlaneEffect]
    {
        guard let info = infos.removeValue(forKey: id) else { return [] }
        context.metrics.calls.ended(reason)
        plane.logger.info(
            "call ended", metadata: ["call": "\(id)", "reason": "\(reason.rawValue)", "by": "\(by ?? "")"])
        let frame = CallEnded(call: info, reason: CallEndReason(rawValue: reason.rawValue), by: by)
        var told: [ControlSession] = []
        if let caller = plane.directory.memberships[MemberID(info.caller.id)],
            let session = plane.sessions.appSession(of: caller)
        {
            told.append(session)
        }
        for (_, memberships) in calleeDevices(info.callee) {
            if let any = memberships.first, let session = plane.sessions.appSession(of: any) { told.append(session) }
        }
        var effects: [PlaneEffect] = told.map { to in
            var frame = frame
            if to === session { frame.re = re }
            return .send(.callEnded(frame), to: to)
        }
        if let session, !told.contains(where: { $0 === session }) {
            var answer = frame
            answer.re = re
            effects.append(.send(.callEnded(answer), to: session))
        }
        if plane.directory.channels[id]?.kind == .call { effects += removeChannel(id) }
        return effects
    }

    /// A call's channel and memberships go: its floor now, the rest after the floor's release grace. What a side said
    /// last may still be on its way when the call ends (a hang-up right after the last words: the hang-up comes over
    /// TCP, the words over UDP), and the relay forwards it until the channel is gone, as it does a released talker's.
    func removeChannel(_ id: ChannelID) -> [PlaneEffect] {
        let grace = context.configuration.floor.releaseGrace.milliseconds
        plane.eventLoop.scheduleTask(in: .milliseconds(max(0, grace))) { [weak self] in self?.submitRemoval(id) }
        return [.floorRemoved(id)]
    }

    private func submitRemoval(_ id: ChannelID) {
        plane.writes.submit(
            DirectoryOperation(
                plan: { directory in
                    guard directory.channels[id]?.kind == .call else { return .nothing(then: {}) }
                    directory.apply(.removeChannel(id))
                    return PlannedChange(
                        changes: [.removeChannel(id)], stored: {},
                        failed: {
                            self.plane.logger.error(
                                "cannot remove an ended call's channel", metadata: ["call": "\(id)", "error": "\($0)"])
                        })
                }, refused: { _ in }))
    }

    static func code(_ refusal: CallRefusal) -> ErrorCode {
        switch refusal {
        case .callsItself: .badRequest
        case .callerBusy, .calleeBusy: .channelBusy
        case .tooManyRinging: .unavailable
        }
    }

    static func message(_ refusal: CallRefusal, _ callee: String) -> String {
        switch refusal {
        case .callsItself: "a user cannot call itself"
        case .callerBusy: "you are in a call already: hang it up first"
        case .calleeBusy: "'\(callee)' is in another call"
        case .tooManyRinging: "too many calls ring on this server now; try again in a moment"
        }
    }
}
