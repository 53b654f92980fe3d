import Foundation
import PTTCore
import PTTProtocol
import PTTStore

extension ControlPlane {
    // MARK: Views sent to clients

    func channelInfo(_ channel: Channel) -> ChannelInfo {
        ChannelInfo(id: channel.id.description, name: channel.name, imageURL: channel.imageURL)
    }

    func memberInfo(_ m: Membership) -> MemberInfo {
        MemberInfo(id: m.id.rawValue, name: m.displayName, user: m.user, priority: m.priority, receiveOnly: m.receiveOnly)
    }

    func mediaParameters(_ m: Membership) -> MediaParameters {
        let secure = configuration.mediaSecurity == .srtp
        return MediaParameters(
            ssrc: m.ssrc, listenSSRC: m.listenSSRC, port: mediaPort, security: configuration.mediaSecurity,
            suite: secure ? m.mediaSuite.rawValue : nil,
            key: secure ? Data(m.mediaKey).base64EncodedString() : nil, payloadType: 111)
    }

    /// The `joined` view of a membership; `listMembers: false` for `welcome`, which can hold many memberships.
    /// `directory` is the one the membership is in (a join batch's, before it is stored).
    func joined(for m: Membership, re: Int?, listMembers: Bool = true, in directory: ChannelDirectory? = nil) -> Joined {
        let directory = directory ?? self.directory
        let channel = directory.channels[m.channel]!
        let listed = listMembers ? directory.oldestMembers(of: channel.id, limit: Joined.maxMembersListed).map(memberInfo) : []
        return Joined(re: re, channel: channelInfo(channel), member: memberInfo(m), media: mediaParameters(m),
                      floor: floorState(of: channel.id), members: listed, memberCount: directory.memberCount(of: channel.id),
                      memberEvents: m.memberEvents)
    }

    // MARK: Requests from members

    /// Finds the channel and this device's membership in it, or answers with an error.
    func lookupMembership(_ reference: String, device: DeviceKey, re: Int?, session: ControlSession) -> (Channel, Membership)? {
        guard let channel = directory.channel(named: reference) else {
            sendError(session, re: re, .noSuchChannel, "no channel '\(reference)'")
            return nil
        }
        guard let membership = directory.membership(channel: channel.id, user: device.user, device: device.device) else {
            sendError(session, re: re, .notAMember, "not a member of channel '\(channel.name)'")
            return nil
        }
        return (channel, membership)
    }

    /// Plans a join and adds it to the current ``JoinBatch``: it is stored with the joins that arrive with
    /// it, in one transaction, and answered once that is on disk. Returns false when the request was
    /// answered at once (an error).
    func handleJoin(_ join: Join, device: DeviceKey, from session: ControlSession) -> Bool {
        var changes: [DirectoryChange] = []
        let now = wallClock.now()
        // Plan against what the batch has already planned (two joins of one device in a batch, say).
        var planning = joinBatch.takeDirectory() ?? directory
        var channel = planning.channel(named: join.channel)
        func refuse(_ code: ErrorCode, _ message: String) -> Bool {
            // Answers stay in order: the joins this connection sent before go out first.
            flushJoins()
            sendError(session, re: join.id, code, message)
            return false
        }
        if channel == nil {
            guard configuration.createChannelsOnJoin, ChannelID(string: join.channel) == nil else {
                return refuse(.noSuchChannel, "no channel '\(join.channel)'")
            }
            do {
                let created = try planning.planCreateChannel(name: join.channel, now: now)
                changes.append(.putChannel(created))
                channel = created
            } catch {
                return refuse(.badRequest, error.description)
            }
        }
        guard let channel else { return false }
        var token: [UInt8]?
        if let hex = join.pushToken {
            guard let bytes = HexCoding.decode(hex) else { return refuse(.badRequest, "pushToken is not hex") }
            token = bytes
        }
        guard let suite = MediaSuite.choose(from: join.srtpSuites) else {
            let spoken = MediaSuite.allCases.map(\.rawValue).joined(separator: ", ")
            return refuse(.badRequest, "none of the SRTP suites offered is supported; this server speaks \(spoken)")
        }
        planning.apply(changes)
        var planned: (membership: Membership, isNew: Bool)
        var random = SecureRandom()
        do {
            planned = try planning.planJoin(channel: channel.id, user: device.user, device: device.device, displayName: join.displayName,
                                            receiveOnly: join.receiveOnly ?? false, pushToken: token, mediaSuite: suite, now: now,
                                            random: &random)
        } catch {
            return refuse(.badRequest, error.description)
        }
        let policy = MemberEventPolicy(upTo: configuration.memberEventsUpTo)
        planned.membership.memberEvents = policy.tells(
            asked: join.memberEvents, membersAfterJoin: planning.memberCount(of: channel.id) + (planned.isNew ? 1 : 0))
        // Who hears of the new member: the members before it that are told (as of this point in the batch).
        let others = planned.isNew ? planning.members(of: channel.id).filter(\.memberEvents) : []
        changes.append(.putMembership(planned.membership))
        planning.apply([.putMembership(planned.membership)])
        let answer = joined(for: planned.membership, re: join.id, in: planning)
        joinBatch.add(JoinBatch.Entry(session: session, channel: channel, membership: planned.membership, isNew: planned.isNew,
                                      createdChannel: changes.count > 1, answer: answer, others: others),
                      changes: changes, directory: planning)
        if !joinBatch.flushQueued {
            joinBatch.flushQueued = true
            eventLoop.execute { self.flushJoins() }
        }
        return true
    }

    /// Stores the batched joins in one transaction, then answers each and tells the other members, in the
    /// order the joins arrived. On a storage failure each is answered with the error and nothing changes.
    func flushJoins() {
        eventLoop.preconditionInEventLoop()
        joinBatch.flushQueued = false
        guard !joinBatch.entries.isEmpty else { return }
        let batch = joinBatch
        joinBatch = JoinBatch()
        do {
            try commit(batch.changes)
        } catch {
            for entry in batch.entries {
                sendError(entry.session, re: entry.answer.re, .internal, "could not store the membership: \(Store.describe(error))")
                entry.session.requestDone()
            }
            return
        }
        metrics.joinBatches.increment()
        for entry in batch.entries {
            metrics.joins.increment()
            if entry.createdChannel { logger.info("channel created on join", metadata: ["channel": "\(entry.channel.name)", "by": "\(entry.membership.user)"]) }
            logger.info("joined", metadata: ["channel": "\(entry.channel.name)", "member": "\(entry.membership.id)", "user": "\(entry.membership.user)",
                                             "device": "\(entry.membership.device)", "new": "\(entry.isNew)"])
            entry.session.send(.joined(entry.answer))
            entry.session.requestDone()
            if entry.isNew {
                let event = ControlMessage.memberJoined(MemberEvent(channel: channelInfo(entry.channel), member: memberInfo(entry.membership)))
                broadcast(event, to: entry.others)
            }
        }
    }

    func handleLeave(_ leave: Leave, device: DeviceKey, from session: ControlSession) {
        guard let (channel, membership) = lookupMembership(leave.channel, device: device, re: leave.id, session: session) else { return }
        do {
            try endMembership(membership, in: channel, reason: "left", re: leave.id, requester: session)
            metrics.leaves.increment()
        } catch {
            sendError(session, re: leave.id, .internal, "could not store the change: \(Store.describe(error))")
        }
    }

    func handlePushToken(_ request: PushToken, device: DeviceKey, from session: ControlSession) {
        guard let (channel, membership) = lookupMembership(request.channel, device: device, re: request.id, session: session) else { return }
        guard let token = HexCoding.decode(request.token) else {
            return sendError(session, re: request.id, .badRequest, "token is not hex")
        }
        do {
            let updated = try directory.planPushToken(member: membership.id, token: token)
            try commit([.putMembership(updated)])
        } catch let error as DirectoryError {
            return sendError(session, re: request.id, .badRequest, error.description)
        } catch {
            return sendError(session, re: request.id, .internal, "could not store the token: \(Store.describe(error))")
        }
        logger.info("push token registered", metadata: ["channel": "\(channel.name)", "member": "\(membership.id)", "bytes": "\(token.count)"])
        session.send(.pushTokenRegistered(PushTokenRegistered(re: request.id, channel: channelInfo(channel))))
    }

    /// Ends a membership (leave, kick or user removal): stores it, frees the floor, tells the member's
    /// sessions and the other members.
    func endMembership(_ membership: Membership, in channel: Channel, reason: String, re: Int? = nil, requester: ControlSession? = nil) throws {
        try commit([.removeMembership(membership.id)])
        if requester == nil { sendLeave(to: membership, reason: reason) }
        logger.info("membership ended", metadata: ["channel": "\(channel.name)", "member": "\(membership.id)", "reason": "\(reason)"])
        let left = ControlMessage.left(Left(re: re, channel: channelInfo(channel), reason: reason))
        var told = Set<UInt64>()
        if let requester { requester.send(left); told.insert(requester.id) }
        for session in allSessions(of: membership) where !told.contains(session.id) {
            session.send(.left(Left(channel: channelInfo(channel), reason: reason)))
        }
        floorEvent(channel.id) { floor, now in floor.memberLeft(membership.id, now: now) }
        broadcast(.memberLeft(MemberEvent(channel: channelInfo(channel), member: memberInfo(membership))),
                  to: directory.members(of: channel.id).filter(\.memberEvents))
    }
}
