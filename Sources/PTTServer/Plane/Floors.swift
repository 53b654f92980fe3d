import NIOCore
import PTTCore
import PTTProtocol

/// The floors of the plane's channels: one pure ``FloorControl`` per channel that is not idle, one timer for its
/// next deadline, and its actions turned into frames (``FloorActionFrames``), relay updates and wakes.
final class Floors {
    /// Who asked, for the answer to a `floor-request`: that member's answer carries `re` and goes to the
    /// connection that asked.
    struct Requester: Sendable {
        var member: MemberID
        /// The connection that asked here (nil: another node's member, answered through ``remote``).
        var session: ControlSession?
        var re: Int?
        /// The node and ticket of a request another node forwarded to this owner.
        var remote: NodeRequester?
        /// The emergency whose declaration asks, ranked at its urgency above what the channel's stored emergency
        /// gives: a declaration asks for the floor before it is stored (``Emergencies``), here or on the node that
        /// forwarded it.
        var emergency: ChannelEmergency?
        /// A broadcast's sender asks for its channel's floor (``FloorUrgency/broadcast``).
        var broadcast = false
    }

    private unowned let plane: ControlPlane
    private var floors: [ChannelID: FloorControl] = [:]
    /// Each busy channel's timer and the deadline it is armed for.
    private var timers: [ChannelID: (deadline: PTTInstant, task: Scheduled<Void>)] = [:]

    init(plane: ControlPlane) {
        self.plane = plane
    }

    private var context: PlaneContext { plane.context }

    /// The floor of a channel, nil when idle.
    subscript(channel: ChannelID) -> FloorControl? { floors[channel] }

    /// Every channel whose floor is taken, with its holder.
    var holders: [(ChannelID, MemberID)] { floors.compactMap { channel, floor in floor.holder.map { (channel, $0) } } }

    /// Runs one floor event for a channel and re-arms the channel's timer; returns what should follow (the relay's
    /// change, the burst's recording, frames, wakes, the cluster's news). In a cluster, only the channel's owner runs
    /// its floor: elsewhere this does nothing (requests and reports go to the owner, see ``ClusterPlane``).
    func handle(_ event: FloorEvent, in channel: ChannelID) -> [PlaneEffect] {
        guard plane.cluster?.remoteOwner(of: channel) == nil else { return [] }
        var floor = floors[channel] ?? FloorControl(configuration: context.configuration.floor)
        floor.adopt(context.configuration.floor)  // an idle floor (in a release's grace) takes a reload's settings
        let holderBefore = floor.holder
        let now = context.clock.now()
        var requester: Requester?
        var leavesBroadcast = false
        let actions: [FloorAction]
        switch event {
        case .request(let asking):
            let urgency = asking.emergency?.level.urgency ?? (asking.broadcast ? .broadcast : .ordinary)
            guard let (candidate, count) = candidate(asking.member, in: channel, asking: urgency) else { return [] }
            if plane.broadcasts.lock(of: channel) != nil {
                // A broadcast holds the channel: only an emergency's urgency takes it (and the channel leaves it).
                guard candidate.urgency >= .imminentPeril else {
                    var frames = FloorActionFrames(plane: plane, channel: channel, requester: asking)
                    var denial: [PlaneEffect] = []
                    frames.append([.denied(asking.member, .broadcast)], to: &denial)
                    return denial
                }
                leavesBroadcast = true
            }
            requester = asking
            actions = floor.request(candidate, memberCount: count, now: now)
        case .release(let member):
            actions = floor.release(member, now: now)
        case .talkHeard(let member, let implicit):
            // A broadcast holds the channel: talking there asks for nothing (the relay drops it).
            guard plane.broadcasts.lock(of: channel) == nil else { return [] }
            guard let (candidate, count) = candidate(member, in: channel) else { return [] }
            actions = floor.talkHeard(from: candidate, memberCount: count, implicitRequest: implicit, now: now)
        case .memberLeft(let member):
            actions = floor.memberLeft(member, now: now)
        case .revoke:
            actions = floor.revoke(now: now)
        case .giveWayToBroadcast:
            actions = floor.revoke(now: now, cause: .broadcast)
        case .timersExpired:
            actions = floor.timersExpired(now: now)
        }
        floors[channel] = floor
        // One array, sized for a grant's effects (relay, recording, answer, floor-taken, wake, cluster) at once: the
        // floor's path is measured in allocations (`make bench-check`).
        var effects: [PlaneEffect] = []
        effects.reserveCapacity(8)
        if leavesBroadcast { effects.append(.leaveBroadcast(channel)) }
        // A declaration another node forwarded with its request: held before the grant's wake and recording read it.
        if let asking = requester, asking.remote != nil, let declared = asking.emergency {
            effects.append(.emergencyForwarded(declared, in: channel))
        }
        if floor.holder != holderBefore {
            if let released = holderBefore, let grace = floor.releaseGrace, grace.member == released, !grace.afterRevoke
            {
                effects.append(.relay([.released(channel, by: released, grace: floor.configuration.releaseGrace)]))
            } else {
                effects.append(.relay([.floor(channel, holder: floor.holder)]))
            }
            if let holder = floor.holder { effects.append(.recordBurst(channel, speaker: holder)) }
        }
        var frames = FloorActionFrames(plane: plane, channel: channel, requester: requester)
        frames.append(actions, to: &effects)
        // A broadcast's sender lost its floor: the broadcast ends, told after the floor's own events.
        if floor.holder != holderBefore, let holderBefore, plane.broadcasts.isSending(from: channel) {
            effects.append(.broadcastFloorLeft(channel, holderBefore, after: event))
        }
        armTimer(channel)
        if plane.cluster != nil {
            effects.append(.floorEventRan(channel, actions: actions, holder: floor.holder, requester: requester))
        }
        return effects
    }

    /// A channel was deleted: its floor and timer go (its burst ends).
    func remove(_ channel: ChannelID) -> [PlaneEffect] {
        timers.removeValue(forKey: channel)?.task.cancel()
        floors[channel] = nil
        return [.burstEnded(channel)]
    }

    /// Keeps the channel's one timer at its floor's next deadline (or the end of a release's grace); an event that
    /// left the deadline as it was (a report of someone talking without the floor, say) leaves the armed timer alone.
    private func armTimer(_ channel: ChannelID) {
        guard let deadline = floors[channel]?.nextDeadline ?? floors[channel]?.releaseGrace?.until else {
            timers.removeValue(forKey: channel)?.task.cancel()
            if floors[channel]?.holder == nil { floors[channel] = nil }  // idle floors hold no state worth keeping
            return
        }
        if timers[channel]?.deadline == deadline { return }
        timers.removeValue(forKey: channel)?.task.cancel()
        let when = NIODeadline.uptimeNanoseconds(deadline.nanoseconds)
        let task = context.eventLoop.scheduleTask(deadline: when) { [self] in
            timers[channel] = nil
            plane.run(handle(.timersExpired, in: channel))
        }
        timers[channel] = (deadline, task)
    }

    /// The `floor` of a channel as `joined` shows it.
    func state(of channel: ChannelID) -> FloorState {
        if let cluster = plane.cluster, cluster.remoteOwner(of: channel) != nil {
            return cluster.remoteFloors[channel]?.state ?? FloorState(state: .idle)
        }
        guard let floor = floors[channel], let holder = floor.holder else { return FloorState(state: .idle) }
        let snapshot = floor.snapshot(now: context.clock.now())
        return FloorState(
            state: .taken, holder: plane.directory.memberships[holder].map(MemberInfo.init),
            talkTimeLeftMs: snapshot.talkTimeLeft.map { Int($0.milliseconds) },
            queue: snapshot.queue.prefix(FloorState.maxQueueListed).map(\.rawValue), queueLength: snapshot.queue.count)
    }

    /// A member of `channel` as a candidate for its floor, with the channel's member count; nil if it is not one.
    /// The user who declared the channel's emergency asks at the emergency's urgency, from any of its devices; a
    /// request may ask higher (`asking`: a declaration not stored yet).
    private func candidate(
        _ member: MemberID, in channel: ChannelID, asking: FloorUrgency = .ordinary
    ) -> (
        FloorCandidate, count: Int
    )? {
        let directory = plane.directory
        guard let membership = directory.memberships[member], membership.channel == channel else { return nil }
        let emergency = directory.channels[channel]?.emergency
        let stored = emergency.map { $0.user == membership.user ? $0.level.urgency : .ordinary } ?? .ordinary
        let urgency = max(stored, asking)
        return (
            FloorCandidate(
                member: member, priority: membership.priority, receiveOnly: membership.receiveOnly, urgency: urgency),
            directory.memberCount(of: channel)
        )
    }

    /// `floor-request`: decided here, or in a cluster by the channel's owner.
    func request(_ command: FloorCommand, device: SessionTable.DeviceKey, from session: ControlSession) -> [PlaneEffect]
    {
        let channel: PTTCore.Channel
        let membership: Membership
        do { (channel, membership) = try device.membership(in: command.channel, of: plane.directory) } catch {
            return [.error(session, re: command.id, error.code, error.message)]
        }
        return [.requestFloor(Requester(member: membership.id, session: session, re: command.id), in: channel.id)]
    }

    /// `floor-release`. Every release gets the same answer, whether the member held the floor, waited in the queue
    /// (then floor-queue-cancelled follows) or neither; the events that follow tell where the floor stands.
    func release(_ command: FloorCommand, device: SessionTable.DeviceKey, from session: ControlSession) -> [PlaneEffect]
    {
        let channel: PTTCore.Channel
        let membership: Membership
        do { (channel, membership) = try device.membership(in: command.channel, of: plane.directory) } catch {
            return [.error(session, re: command.id, error.code, error.message)]
        }
        let released = PlaneEffect.send(
            .floorReleased(FloorChannelEvent(re: command.id, channel: ChannelInfo(channel))), to: session)
        if let owner = plane.cluster?.remoteOwner(of: channel.id) {
            return [
                released,
                .toOwner(.floorRelease(NodeFloorMember(channel: channel.id, member: membership.id)), owner: owner),
            ]
        }
        return [released, .floor(channel.id, .release(membership.id))]
    }
}
