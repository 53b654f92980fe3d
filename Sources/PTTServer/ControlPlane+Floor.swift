import NIOCore
import PTTCore
import PTTProtocol

extension ControlPlane {
    /// Runs one floor event for a channel, executes the actions it returns and re-arms the channel's timer.
    /// `requester` and `re` mark the answer to a request with its id.
    func floorEvent(_ channel: ChannelID, requester: MemberID? = nil, re: Int? = nil,
                    _ event: (inout FloorControl, PTTInstant) -> [FloorAction]) {
        var floor = floors[channel] ?? FloorControl(configuration: configuration.floor)
        let actions = event(&floor, clock.now())
        floors[channel] = floor
        execute(actions, in: channel, requester: requester, re: re)
        armFloorTimer(channel)
    }

    func armFloorTimer(_ channel: ChannelID) {
        floorTimers.removeValue(forKey: channel)?.cancel()
        guard let deadline = floors[channel]?.nextDeadline else {
            if floors[channel]?.holder == nil { floors[channel] = nil }  // idle floors hold no state worth keeping
            return
        }
        let when = NIODeadline.uptimeNanoseconds(deadline.nanoseconds)
        floorTimers[channel] = eventLoop.scheduleTask(deadline: when) { [self] in
            floorTimers[channel] = nil
            floorEvent(channel) { floor, now in floor.timersExpired(now: now) }
        }
    }

    func floorState(of channel: ChannelID) -> FloorState {
        guard let floor = floors[channel], let holder = floor.holder else { return FloorState(state: "idle") }
        let snapshot = floor.snapshot(now: clock.now())
        return FloorState(state: "taken", holder: directory.memberships[holder].map(memberInfo),
                          talkTimeLeftMs: snapshot.talkTimeLeft.map { Int($0.milliseconds) },
                          queue: snapshot.queue.map(\.rawValue))
    }

    func handleFloorRequest(_ command: FloorCommand, device: DeviceKey, from session: ControlSession) {
        guard let (channel, membership) = lookupMembership(command.channel, device: device, re: command.id, session: session) else { return }
        let candidate = FloorCandidate(member: membership.id, priority: membership.priority, receiveOnly: membership.receiveOnly)
        let count = directory.memberCount(of: channel.id)
        floorEvent(channel.id, requester: membership.id, re: command.id) { floor, now in
            floor.request(candidate, memberCount: count, now: now)
        }
    }

    func handleFloorRelease(_ command: FloorCommand, device: DeviceKey, from session: ControlSession) {
        guard let (channel, membership) = lookupMembership(command.channel, device: device, re: command.id, session: session) else { return }
        let wasInvolved = floors[channel.id].map { $0.holder == membership.id || $0.queue.contains { $0.member == membership.id } } ?? false
        floorEvent(channel.id, requester: membership.id, re: command.id) { floor, now in floor.release(membership.id, now: now) }
        if !wasInvolved {
            // Releasing a floor one does not hold is harmless: say where the floor stands.
            session.send(.floorIdle(FloorChannelEvent(re: command.id, channel: channelInfo(channel))))
        }
    }

    /// Turns floor actions into frames to members, and counts them.
    func execute(_ actions: [FloorAction], in channelID: ChannelID, requester: MemberID?, re: Int?) {
        guard let channel = directory.channels[channelID] else { return }
        let info = channelInfo(channel)
        func reply(to member: MemberID) -> Int? { member == requester ? re : nil }
        func send(_ message: ControlMessage, to member: MemberID) {
            guard let membership = directory.memberships[member] else { return }
            appSession(of: membership)?.send(message)
        }
        for action in actions {
            switch action {
            case .granted(let member, let talkTime):
                metrics.floorGrants.increment()
                logger.info("floor granted", metadata: ["channel": "\(channel.name)", "member": "\(member)"])
                send(.floorGranted(FloorGranted(re: reply(to: member), channel: info, talkTimeMs: Int(talkTime.milliseconds))), to: member)
            case .denied(let member, let cause):
                metrics.floorDenied(cause: cause.rawValue)
                send(.floorDenied(FloorDenied(re: reply(to: member), channel: info, cause: cause.rawValue)), to: member)
            case .queued(let member, let position):
                if member == requester { metrics.floorQueued.increment() }
                send(.floorQueued(FloorQueued(re: reply(to: member), channel: info, position: position)), to: member)
            case .queueCancelled(let member):
                send(.floorQueueCancelled(FloorChannelEvent(re: reply(to: member), channel: info)), to: member)
            case .preemptionPending(let holder, let by, let grace):
                guard let pre = directory.memberships[by] else { continue }
                send(.floorRevokePending(FloorRevokePending(channel: info, by: memberInfo(pre), graceMs: Int(grace.milliseconds))), to: holder)
            case .revoked(let member, let cause):
                metrics.floorRevoked(cause: cause.rawValue)
                logger.info("floor revoked", metadata: ["channel": "\(channel.name)", "member": "\(member)", "cause": "\(cause.rawValue)"])
                send(.floorRevoked(FloorRevoked(channel: info, cause: cause.rawValue)), to: member)
            case .taken(let member):
                guard let holder = directory.memberships[member] else { continue }
                broadcast(.floorTaken(FloorTaken(channel: info, member: memberInfo(holder))), to: channelID)
            case .idle:
                for member in directory.members(of: channelID) {
                    appSession(of: member)?.send(.floorIdle(FloorChannelEvent(re: reply(to: member.id), channel: info)))
                }
            }
        }
    }
}
