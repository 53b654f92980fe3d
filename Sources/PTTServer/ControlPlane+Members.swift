import Foundation
import PTTCore
import PTTProtocol

extension ControlPlane {
    // MARK: Views sent to clients

    func channelInfo(_ channel: Channel) -> ChannelInfo {
        ChannelInfo(id: channel.id.description, name: channel.name, imageURL: channel.imageURL)
    }

    func memberInfo(_ m: Membership) -> MemberInfo {
        MemberInfo(id: m.id.rawValue, name: m.displayName, user: m.user, priority: m.priority, receiveOnly: m.receiveOnly)
    }

    func mediaParameters(_ m: Membership) -> MediaParameters {
        let secure = configuration.mediaSecurity == "srtp"
        return MediaParameters(
            ssrc: m.ssrc, listenSSRC: m.listenSSRC, port: mediaPort, security: configuration.mediaSecurity,
            suite: secure ? "AES_CM_128_HMAC_SHA1_80" : nil,
            key: secure ? Data(m.mediaKey).base64EncodedString() : nil, payloadType: 111)
    }

    /// The `joined` view of a membership; `listMembers: false` for `welcome`, which can hold many memberships.
    func joined(for m: Membership, re: Int?, listMembers: Bool = true) -> Joined {
        let channel = directory.channels[m.channel]!
        let listed = listMembers ? directory.oldestMembers(of: channel.id, limit: Joined.maxMembersListed).map(memberInfo) : []
        return Joined(re: re, channel: channelInfo(channel), member: memberInfo(m), media: mediaParameters(m),
                      floor: floorState(of: channel.id), members: listed, memberCount: directory.memberCount(of: channel.id))
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

    func handleJoin(_ join: Join, device: DeviceKey, from session: ControlSession) {
        var changes: [DirectoryChange] = []
        let now = Date()
        var channel = directory.channel(named: join.channel)
        if channel == nil {
            guard configuration.createChannelsOnJoin, ChannelID(string: join.channel) == nil else {
                return sendError(session, re: join.id, .noSuchChannel, "no channel '\(join.channel)'")
            }
            do {
                let created = try directory.planCreateChannel(name: join.channel, now: now)
                changes.append(.putChannel(created))
                channel = created
            } catch {
                return sendError(session, re: join.id, .badRequest, error.description)
            }
        }
        guard let channel else { return }
        var token: [UInt8]?
        if let hex = join.pushToken {
            guard let bytes = HexCoding.decode(hex) else {
                return sendError(session, re: join.id, .badRequest, "pushToken is not hex")
            }
            token = bytes
        }
        var scratch = directory
        scratch.apply(changes)
        let planned: (membership: Membership, isNew: Bool)
        do {
            planned = try scratch.planJoin(channel: channel.id, user: device.user, device: device.device, displayName: join.displayName,
                                           receiveOnly: join.receiveOnly ?? false, pushToken: token, now: now, random: &random)
        } catch {
            return sendError(session, re: join.id, .badRequest, error.description)
        }
        changes.append(.putMembership(planned.membership))
        do { try commit(changes) } catch {
            return sendError(session, re: join.id, .internal, "could not store the membership: \(Store.describe(error))")
        }
        metrics.joins.increment()
        if changes.count > 1 { logger.info("channel created on join", metadata: ["channel": "\(channel.name)", "by": "\(device.user)"]) }
        logger.info("joined", metadata: ["channel": "\(channel.name)", "member": "\(planned.membership.id)", "user": "\(device.user)",
                                         "device": "\(device.device)", "new": "\(planned.isNew)"])
        session.send(.joined(joined(for: planned.membership, re: join.id)))
        if planned.isNew {
            broadcast(.memberJoined(MemberEvent(channel: channelInfo(channel), member: memberInfo(planned.membership))),
                      to: channel.id, excluding: planned.membership.id)
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
        broadcast(.memberLeft(MemberEvent(channel: channelInfo(channel), member: memberInfo(membership))), to: channel.id)
    }
}
