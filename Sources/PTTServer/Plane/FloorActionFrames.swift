import PTTCore
import PTTProtocol

/// What the ``FloorAction``s of one floor event make happen: frames to members, the floor's broadcasts, wakes at the
/// start of a talk burst (as effects), metrics and log.
struct FloorActionFrames {
    let plane: ControlPlane
    let channel: ChannelID
    let requester: Floors.Requester?
    /// Another node ran the event (it owns the channel): here only the members connected to this node are told;
    /// counts, logs and wakes are the owner's.
    let remote: Bool
    /// The first granted/denied/queued for the requester answers its request.
    private var answered = false

    init(plane: ControlPlane, channel: ChannelID, requester: Floors.Requester?, remote: Bool = false) {
        self.plane = plane
        self.channel = channel
        self.requester = requester
        self.remote = remote
    }

    /// Appends the effects of `actions`, in their order, to `effects` (the floor event's own array: no array of
    /// its own to allocate and join).
    mutating func append(_ actions: [FloorAction], to effects: inout [PlaneEffect]) {
        guard let found = plane.directory.channels[channel] else { return }
        let info = ChannelInfo(found)
        for action in actions {
            if !remote { account(action, channelName: found.name) }
            switch action {
            case .granted(let member, let talkTime):
                send(
                    .floorGranted(
                        FloorGranted(re: reply(to: member), channel: info, talkTimeMs: Int(talkTime.milliseconds))),
                    to: member, into: &effects)
            case .denied(let member, let cause):
                send(
                    .floorDenied(
                        FloorDenied(
                            re: reply(to: member), channel: info, cause: FloorDenialCause(rawValue: cause.rawValue))),
                    to: member, into: &effects)
            case .queued(let member, let position):
                send(
                    .floorQueued(FloorQueued(re: reply(to: member), channel: info, position: position)), to: member,
                    into: &effects)
            case .queueCancelled(let member):
                send(.floorQueueCancelled(FloorChannelEvent(channel: info)), to: member, into: &effects)
            case .preemptionPending(let holder, let by, let grace):
                guard let pre = plane.directory.memberships[by] else { continue }
                send(
                    .floorRevokePending(
                        FloorRevokePending(channel: info, by: MemberInfo(pre), graceMs: Int(grace.milliseconds))),
                    to: holder, into: &effects)
            case .revoked(let member, let cause):
                send(
                    .floorRevoked(FloorRevoked(channel: info, cause: FloorRevocationCause(rawValue: cause.rawValue))),
                    to: member, into: &effects)
            case .taken(let member):
                guard let holder = plane.directory.memberships[member] else { continue }
                effects.append(
                    .broadcastToChannel(.floorTaken(FloorTaken(channel: info, member: MemberInfo(holder))), channel))
                if !remote { effects.append(.wakeForBurst(channel, speaker: member)) }
            case .idle:
                effects.append(.broadcastToChannel(.floorIdle(FloorChannelEvent(channel: info)), channel))
                if !remote { effects.append(.burstEnded(channel)) }
            }
        }
    }

    /// The owner's metrics and log of an action.
    private func account(_ action: FloorAction, channelName: String) {
        let metrics = plane.context.metrics
        switch action {
        case .granted(let member, _):
            metrics.channels.floorGrants.increment()
            plane.logger.info("floor granted", metadata: ["channel": "\(channelName)", "member": "\(member)"])
        case .denied(_, let cause):
            metrics.channels.floorDenied(cause: cause)
        case .queued(let member, _):
            if member == requester?.member { metrics.channels.floorQueued.increment() }
        case .revoked(let member, let cause):
            metrics.channels.floorRevoked(cause: cause)
            plane.logger.info(
                "floor revoked",
                metadata: ["channel": "\(channelName)", "member": "\(member)", "cause": "\(cause.rawValue)"])
        case .queueCancelled, .preemptionPending, .taken, .idle:
            break
        }
    }

    private mutating func reply(to member: MemberID) -> Int? {
        guard let requester, member == requester.member, !answered else { return nil }
        answered = true
        return requester.re
    }

    /// The requester's answers go to the connection that asked; everything else to the member's app session.
    private func send(_ message: ControlMessage, to member: MemberID, into effects: inout [PlaneEffect]) {
        if let requester, message.re != nil, member == requester.member, let session = requester.session {
            return effects.append(.send(message, to: session))
        }
        guard let membership = plane.directory.memberships[member],
            let session = plane.sessions.appSession(of: membership)
        else { return }
        effects.append(.send(message, to: session))
    }
}
