import Foundation
import PTTCore
import PTTProtocol
import PTTStore

/// Members' own requests about their memberships: `join` (batched: stored with the joins that arrive with it in
/// one transaction), `leave` and `push-token`; and the end of a membership, whoever ends it.
final class Memberships: @unchecked Sendable {
    // @unchecked: confined to the plane's event loop, like the plane.
    unowned let plane: ControlPlane
    /// Joins planned and waiting for their shared storage write (``flushJoins()``).
    private var batch = JoinBatch()

    init(plane: ControlPlane) {
        self.plane = plane
    }

    var context: PlaneContext { plane.context }

    /// Finds the channel and this device's membership in it, or answers with an error.
    func lookup(
        _ reference: String, device: SessionTable.DeviceKey, re: Int?,
        session: ControlSession
    ) -> (Channel, Membership)? {
        guard let channel = plane.directory.channel(named: reference) else {
            plane.sendError(session, re: re, .noSuchChannel, "no channel '\(reference)'")
            return nil
        }
        guard let membership = plane.directory.membership(channel: channel.id, user: device.user, device: device.device)
        else {
            plane.sendError(session, re: re, .notAMember, "not a member of channel '\(channel.name)'")
            return nil
        }
        return (channel, membership)
    }

    /// Plans a join and adds it to the current ``JoinBatch``: it is stored with the joins that arrive with it, in
    /// one transaction, and answered once that is on disk. Returns false when the request was answered at once
    /// (an error).
    func join(_ join: Join, device: SessionTable.DeviceKey, from session: ControlSession) -> Bool {
        // Plan against what the batch has already planned (two joins of one device in a batch, say).
        var planning = batch.takeDirectory() ?? plane.directory
        let plan: JoinPlan
        do {
            plan = try JoinPlan.make(
                join, device: device, in: &planning, configuration: context.configuration,
                now: context.wallClock.now())
        } catch {
            // Answers stay in order: the joins this connection sent before go out first.
            flushJoins()
            plane.sendError(session, re: join.id, error.code, error.message)
            return false
        }
        let answer = joined(for: plan.membership, re: join.id, in: planning)
        batch.add(
            JoinBatch.Entry(
                session: session, request: join, device: device, channel: plan.channel, membership: plan.membership,
                isNew: plan.isNew,
                createdChannel: plan.createdChannel, answer: answer, others: plan.others),
            changes: plan.changes, directory: planning)
        if !batch.flushQueued {
            batch.flushQueued = true
            context.eventLoop.execute { self.flushJoins() }
        }
        return true
    }

    /// Stores the batched joins in one transaction, then answers each and tells the other members, in the order
    /// the joins arrived. A batch that met another node's change is planned again (``store(_:)``). On a storage
    /// failure each is answered with the error and nothing changes.
    func flushJoins() {
        context.eventLoop.preconditionInEventLoop()
        batch.flushQueued = false
        guard !batch.entries.isEmpty else { return }
        var flushing = batch
        batch = JoinBatch()
        do {
            flushing = try store(flushing)
        } catch {
            for entry in flushing.entries {
                plane.sendError(
                    entry.session, re: entry.answer.re, .internal,
                    "could not store the membership: \(plane.store.describe(error))")
                entry.session.requestDone()
            }
            return
        }
        context.metrics.channels.joinBatches.increment()
        for entry in flushing.entries {
            if let refusal = entry.refusal {
                plane.sendError(entry.session, re: entry.answer.re, refusal.code, refusal.message)
                entry.session.requestDone()
                continue
            }
            context.metrics.channels.joins.increment()
            if entry.createdChannel {
                plane.logger.info(
                    "channel created on join",
                    metadata: ["channel": "\(entry.channel.name)", "by": "\(entry.membership.user)"])
            }
            plane.logger.info(
                "joined",
                metadata: [
                    "channel": "\(entry.channel.name)", "member": "\(entry.membership.id)",
                    "user": "\(entry.membership.user)", "device": "\(entry.membership.device)",
                    "new": "\(entry.isNew)",
                ])
            entry.session.send(.joined(entry.answer))
            entry.session.requestDone()
            if entry.isNew {
                let event = MemberEvent(channel: ChannelInfo(entry.channel), member: MemberInfo(entry.membership))
                plane.broadcast(.memberJoined(event), to: entry.others)
            }
        }
    }

    /// `leave`: ends this device's membership of a channel.
    func leave(_ leave: Leave, device: SessionTable.DeviceKey, from session: ControlSession) {
        guard let (channel, membership) = lookup(leave.channel, device: device, re: leave.id, session: session) else {
            return
        }
        do {
            try end(membership, in: channel, reason: "left", re: leave.id, requester: session)
            context.metrics.channels.leaves.increment()
        } catch {
            let why = plane.store.describe(error)
            plane.sendError(session, re: leave.id, .internal, "could not store the change: \(why)")
        }
    }

    /// `push-token`: stores the membership's APNs push token.
    func registerPushToken(_ request: PushToken, device: SessionTable.DeviceKey, from session: ControlSession) {
        guard let (channel, membership) = lookup(request.channel, device: device, re: request.id, session: session)
        else { return }
        guard let token = HexCoding.decode(request.token) else {
            return plane.sendError(session, re: request.id, .badRequest, "token is not hex")
        }
        do {
            let updated = try plane.directory.planPushToken(member: membership.id, token: token)
            try plane.commit([.putMembership(updated)])
        } catch let error as DirectoryError {
            return plane.sendError(session, re: request.id, .badRequest, error.description)
        } catch {
            return plane.sendError(
                session, re: request.id, .internal, "could not store the token: \(plane.store.describe(error))")
        }
        plane.logger.info(
            "push token registered",
            metadata: ["channel": "\(channel.name)", "member": "\(membership.id)", "bytes": "\(token.count)"])
        session.send(.pushTokenRegistered(PushTokenRegistered(re: request.id, channel: ChannelInfo(channel))))
    }

    /// Ends a membership (leave, kick or user removal): stores it, frees the floor, tells the member's sessions
    /// and the other members; a member ended by someone else whose app is not connected is told with a push.
    func end(
        _ membership: Membership, in channel: Channel, reason: String, re: Int? = nil,
        requester: ControlSession? = nil
    ) throws {
        try plane.commit([.removeMembership(membership.id)])
        if requester == nil { plane.notifier.sendLeave(to: membership, reason: reason) }
        plane.logger.info(
            "membership ended",
            metadata: ["channel": "\(channel.name)", "member": "\(membership.id)", "reason": "\(reason)"])
        var told = Set<UInt64>()
        if let requester {
            requester.send(.left(Left(re: re, channel: ChannelInfo(channel), reason: reason)))
            told.insert(requester.id)
        }
        for session in plane.sessions.allSessions(of: membership) where !told.contains(session.id) {
            session.send(.left(Left(channel: ChannelInfo(channel), reason: reason)))
        }
        plane.floors.event(channel.id) { floor, now in floor.memberLeft(membership.id, now: now) }
        plane.broadcast(
            .memberLeft(MemberEvent(channel: ChannelInfo(channel), member: MemberInfo(membership))),
            to: plane.directory.members(of: channel.id).filter(\.memberEvents))
    }

    /// The `joined` view of a membership; `listMembers: false` for `welcome`, which can hold many memberships.
    /// `directory` is the one the membership is in (a join batch's, before it is stored).
    func joined(for m: Membership, re: Int?, listMembers: Bool = true, in directory: ChannelDirectory) -> Joined {
        let channel = directory.channels[m.channel]!
        let listed =
            listMembers
            ? directory.oldestMembers(of: channel.id, limit: Joined.maxMembersListed).map(MemberInfo.init) : []
        return Joined(
            re: re, channel: ChannelInfo(channel), member: MemberInfo(m), media: mediaParameters(m),
            floor: plane.floors.state(of: channel.id), members: listed,
            memberCount: directory.memberCount(of: channel.id),
            memberEvents: m.memberEvents, recorded: plane.recordings.isRecorded(channel))
    }

    /// How a member sends and receives audio: its SSRCs, the relay's port, and its SRTP key when media is secured.
    private func mediaParameters(_ m: Membership) -> MediaParameters {
        let security = context.configuration.mediaSecurity
        let secure = security == .srtp
        return MediaParameters(
            ssrc: m.ssrc, listenSSRC: m.listenSSRC, port: plane.relayLink.mediaPort, security: security,
            suite: secure ? m.mediaSuite.rawValue : nil,
            key: secure ? Data(m.mediaKey).base64EncodedString() : nil, payloadType: 111)
    }
}
