import NIOCore
import PTTCore
import PTTProtocol

extension ControlPlane {
    /// Who asked, for the answer to a `floor-request`: that member's answer carries `re` and goes to the
    /// connection that asked.
    struct FloorRequester {
        var member: MemberID
        var session: ControlSession
        var re: Int?
    }

    /// Runs one floor event for a channel, executes the actions it returns and re-arms the channel's timer.
    func floorEvent(_ channel: ChannelID, requester: FloorRequester? = nil,
                    _ event: (inout FloorControl, PTTInstant) -> [FloorAction]) {
        var floor = floors[channel] ?? FloorControl(configuration: configuration.floor)
        let holderBefore = floor.holder
        let actions = event(&floor, clock.now())
        floors[channel] = floor
        if floor.holder != holderBefore { syncRelayFloor(channel) }
        execute(actions, in: channel, requester: requester)
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
                          queue: snapshot.queue.prefix(FloorState.maxQueueListed).map(\.rawValue), queueLength: snapshot.queue.count)
    }

    func handleFloorRequest(_ command: FloorCommand, device: DeviceKey, from session: ControlSession) {
        guard let (channel, membership) = lookupMembership(command.channel, device: device, re: command.id, session: session) else { return }
        let candidate = FloorCandidate(member: membership.id, priority: membership.priority, receiveOnly: membership.receiveOnly)
        let count = directory.memberCount(of: channel.id)
        let requester = FloorRequester(member: membership.id, session: session, re: command.id)
        floorEvent(channel.id, requester: requester) { floor, now in
            floor.request(candidate, memberCount: count, now: now)
        }
    }

    func handleFloorRelease(_ command: FloorCommand, device: DeviceKey, from session: ControlSession) {
        guard let (channel, membership) = lookupMembership(command.channel, device: device, re: command.id, session: session) else { return }
        // Every release gets the same answer, whether the member held the floor, waited in the queue
        // (then floor-queue-cancelled follows) or neither; the events that follow tell where the floor stands.
        session.send(.floorReleased(FloorChannelEvent(re: command.id, channel: channelInfo(channel))))
        floorEvent(channel.id) { floor, now in floor.release(membership.id, now: now) }
    }

    /// Turns floor actions into frames to members, and counts them.
    func execute(_ actions: [FloorAction], in channelID: ChannelID, requester: FloorRequester?) {
        guard let channel = directory.channels[channelID] else { return }
        let info = channelInfo(channel)
        var answered = false
        /// The first granted/denied/queued for the requester answers its request.
        func reply(to member: MemberID) -> Int? {
            guard let requester, member == requester.member, !answered else { return nil }
            answered = true
            return requester.re
        }
        func send(_ message: ControlMessage, to member: MemberID) {
            if let requester, message.re != nil, member == requester.member {
                return requester.session.send(message)
            }
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
                metrics.floorDenied(cause: cause)
                send(.floorDenied(FloorDenied(re: reply(to: member), channel: info, cause: cause.rawValue)), to: member)
            case .queued(let member, let position):
                if member == requester?.member { metrics.floorQueued.increment() }
                send(.floorQueued(FloorQueued(re: reply(to: member), channel: info, position: position)), to: member)
            case .queueCancelled(let member):
                send(.floorQueueCancelled(FloorChannelEvent(channel: info)), to: member)
            case .preemptionPending(let holder, let by, let grace):
                guard let pre = directory.memberships[by] else { continue }
                send(.floorRevokePending(FloorRevokePending(channel: info, by: memberInfo(pre), graceMs: Int(grace.milliseconds))), to: holder)
            case .revoked(let member, let cause):
                metrics.floorRevoked(cause: cause)
                logger.info("floor revoked", metadata: ["channel": "\(channel.name)", "member": "\(member)", "cause": "\(cause.rawValue)"])
                send(.floorRevoked(FloorRevoked(channel: info, cause: cause.rawValue)), to: member)
            case .taken(let member):
                guard let holder = directory.memberships[member] else { continue }
                broadcast(.floorTaken(FloorTaken(channel: info, member: memberInfo(holder))), to: channelID)
                burstStarted(in: channelID, speaker: member)
            case .idle:
                broadcast(.floorIdle(FloorChannelEvent(channel: info)), to: channelID)
                burstEnded(in: channelID)
            }
        }
    }
}
