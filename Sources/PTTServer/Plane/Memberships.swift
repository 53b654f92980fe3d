import Foundation
import PTTCore
import PTTProtocol
import PTTStore

/// Members' own requests about their memberships: `join`, `leave` and `push-token`, stored in turn through
/// ``DirectoryWrites`` (joins that arrive together go in one transaction) and answered once stored; and the end of a
/// membership, whoever ends it.
final class Memberships {
    unowned let plane: ControlPlane

    init(plane: ControlPlane) {
        self.plane = plane
    }

    var context: PlaneContext { plane.context }

    /// Answers a request that was refused or failed with `error`, and lets the connection read its next request.
    private func answer(_ session: ControlSession, re: Int?, refused error: any Error, storing what: String) {
        plane.run(PlaneEffect.refused(session, re: re, error, storing: what, storage: plane.storage))
    }

    /// `join`: planned in its turn, stored with the joins that arrive with it in one transaction, and answered once
    /// that is stored.
    func join(_ join: Join, device: SessionTable.DeviceKey, from session: ControlSession) {
        plane.writes.submit(
            DirectoryOperation(
                plan: { directory in
                    let plan = try JoinPlan.make(
                        join, device: device, in: &directory, configuration: self.context.configuration,
                        now: self.context.wallClock.now())
                    let answer = self.joined(for: plan.membership, re: join.id, in: directory)
                    return PlannedChange(
                        changes: plan.changes, stored: { self.joined(plan, answer: answer, session: session) },
                        failed: { self.answer(session, re: join.id, refused: $0, storing: "membership") },
                        isJoin: true)
                },
                refused: { self.answer(session, re: join.id, refused: $0, storing: "membership") }))
    }

    /// A join is stored: its device is answered, and the members before it told.
    private func joined(_ plan: JoinPlan, answer: Joined, session: ControlSession) {
        context.metrics.channels.joins.increment()
        if plan.createdChannel {
            plane.logger.info(
                "channel created on join",
                metadata: ["channel": "\(plan.channel.name)", "by": "\(plan.membership.user)"])
        }
        plane.logger.info(
            "joined",
            metadata: [
                "channel": "\(plan.channel.name)", "member": "\(plan.membership.id)",
                "user": "\(plan.membership.user)", "device": "\(plan.membership.device)", "new": "\(plan.isNew)",
            ])
        var answer = answer
        answer.floor = plane.floors.state(of: plan.channel.id)  // as it is now, not when the join was planned
        var effects: [PlaneEffect] = [
            .send(.joined(answer), to: session),
            .tellBroadcast(plan.membership.id, in: plan.channel.id, session: session),
            .requestAnswered(session),
        ]
        if plan.isNew {
            let event = MemberEvent(channel: ChannelInfo(plan.channel), member: MemberInfo(plan.membership))
            effects.append(.broadcast(.memberJoined(event), to: plan.others))
            effects.append(.broadcastMembersChanged(plan.channel.id))
        }
        plane.run(effects)
    }

    /// `leave`: ends this device's membership of a channel, in its turn.
    func leave(_ leave: Leave, device: SessionTable.DeviceKey, from session: ControlSession) {
        plane.writes.submit(
            DirectoryOperation(
                plan: { directory in
                    let (channel, membership) = try device.membership(in: leave.channel, of: directory)
                    directory.apply(.removeMembership(membership.id))
                    return PlannedChange(
                        changes: [.removeMembership(membership.id)],
                        stored: {
                            self.context.metrics.channels.leaves.increment()
                            self.plane.run([
                                .membershipEnded(
                                    membership, in: channel, reason: .left, re: leave.id, requester: session),
                                .requestAnswered(session),
                            ])
                        },
                        failed: { self.answer(session, re: leave.id, refused: $0, storing: "change") })
                },
                refused: { self.answer(session, re: leave.id, refused: $0, storing: "change") }))
    }

    /// `push-token`: stores the membership's APNs push token, in its turn.
    func registerPushToken(_ request: PushToken, device: SessionTable.DeviceKey, from session: ControlSession) {
        plane.writes.submit(
            DirectoryOperation(
                plan: { directory in
                    let (channel, membership) = try device.membership(in: request.channel, of: directory)
                    guard let token = HexCoding.decode(request.token) else {
                        throw JoinPlan.Refusal(code: .badRequest, message: "token is not hex")
                    }
                    let updated = try directory.planPushToken(member: membership.id, token: token)
                    directory.apply(.putMembership(updated))
                    return PlannedChange(
                        changes: [.putMembership(updated)],
                        stored: {
                            self.plane.logger.info(
                                "push token registered",
                                metadata: [
                                    "channel": "\(channel.name)", "member": "\(membership.id)",
                                    "bytes": "\(token.count)",
                                ])
                            let registered = PushTokenRegistered(re: request.id, channel: ChannelInfo(channel))
                            self.plane.run([
                                .send(.pushTokenRegistered(registered), to: session), .requestAnswered(session),
                            ])
                        },
                        failed: { self.answer(session, re: request.id, refused: $0, storing: "token") })
                },
                refused: { self.answer(session, re: request.id, refused: $0, storing: "token") }))
    }

    /// A membership has ended and that is stored (leave, kick or user removal): the floor is freed, the member's
    /// sessions and the other members are told; a member ended by someone else whose app is not connected is told
    /// with a push.
    func ended(
        _ membership: Membership, in channel: Channel, reason: LeaveReason, re: Int? = nil,
        requester: ControlSession? = nil
    ) -> [PlaneEffect] {
        var effects: [PlaneEffect] = []
        if requester == nil { effects.append(.pushLeave(membership, reason)) }
        plane.logger.info(
            "membership ended",
            metadata: ["channel": "\(channel.name)", "member": "\(membership.id)", "reason": "\(reason)"])
        var told = Set<UInt64>()
        if let requester {
            effects.append(.send(.left(Left(re: re, channel: ChannelInfo(channel), reason: reason)), to: requester))
            told.insert(requester.id)
        }
        for session in plane.sessions.allSessions(of: membership) where !told.contains(session.id) {
            effects.append(.send(.left(Left(channel: ChannelInfo(channel), reason: reason)), to: session))
        }
        effects.append(.floor(channel.id, .memberLeft(membership.id)))
        effects.append(.broadcastMembersChanged(channel.id))
        effects.append(
            .broadcast(
                .memberLeft(MemberEvent(channel: ChannelInfo(channel), member: MemberInfo(membership))),
                to: plane.directory.membersTold(in: channel.id)))
        return effects
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
            memberEvents: m.memberEvents, recorded: plane.recordings.isRecorded(channel),
            emergency: channel.emergency.map { EmergencyState($0, in: directory) })
    }

    /// How a member sends and receives audio: its SSRCs, the relay's port, and its SRTP key when media is secured.
    private func mediaParameters(_ m: Membership) -> MediaParameters {
        MediaParameters(m, configuration: context.configuration, port: plane.relayLink.mediaPort)
    }
}

extension MediaParameters {
    /// How a member sends and receives audio: its SSRCs, the relay's port, and its SRTP key when media is secured.
    init(_ m: Membership, configuration: ServerConfiguration, port: Int) {
        let security = configuration.mediaSecurity
        let secure = security == .srtp
        self.init(
            ssrc: m.ssrc, listenSSRC: m.listenSSRC, port: port, security: security,
            suite: secure ? m.mediaSuite.rawValue : nil,
            key: secure ? Data(m.mediaKey).base64EncodedString() : nil, payloadType: 111)
    }
}
