import Foundation
import PTTCore
import PTTProtocol
import PTTStore

/// The operations behind the admin API. Each runs on the plane's event loop; errors are ``AdminError``s
/// whose `error` field maps to an HTTP status in ``AdminRouter``.
extension ControlPlane {
    static func iso8601(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    func adminChannel(_ reference: String) throws(AdminError) -> Channel {
        guard let channel = directory.channel(named: reference) else { throw AdminError(.notFound, "no channel '\(reference)'") }
        return channel
    }

    func listChannels() -> [ChannelSummary] {
        directory.channels.values.sorted { $0.name < $1.name }.map { channel in
            let members = directory.members(of: channel.id)
            let floor = floors[channel.id]
            return ChannelSummary(
                id: channel.id.description, name: channel.name, imageURL: channel.imageURL, members: members.count,
                connected: members.filter { appSession(of: $0) != nil }.count,
                floor: floor?.holder == nil ? "idle" : "taken",
                speaker: floor?.holder.flatMap { directory.memberships[$0]?.displayName },
                queueLength: floor?.queue.count ?? 0)
        }
    }

    func memberStatus(_ m: Membership) -> MemberStatus {
        let device = DeviceKey(user: m.user, device: m.device)
        let roles = liveRoles(of: device)
        return MemberStatus(
            id: m.id.rawValue, name: m.displayName, user: m.user, device: m.device, priority: m.priority, receiveOnly: m.receiveOnly,
            connected: roles.contains(.app), connections: roles.map(\.rawValue), pushToken: m.pushToken != nil, audioReachable: audioReachable(m.id),
            droppedNotHolder: mediaDroppedNotHolder[m.id] ?? 0,
            lastHeartbeat: lastHeartbeat[device].map(Self.iso8601),
            joinedAt: Self.iso8601(m.joinedAt), ssrc: m.ssrc, wakeRoute: wakeRoute(m).rawValue, lastWake: lastWakeStatus(m.id))
    }

    func channelDetail(_ reference: String) throws(AdminError) -> ChannelDetail {
        let channel = try adminChannel(reference)
        let snapshot = floors[channel.id]?.snapshot(now: clock.now())
        let queue = (snapshot?.queue ?? []).enumerated().compactMap { index, id -> QueueEntryStatus? in
            guard let m = directory.memberships[id] else { return nil }
            return QueueEntryStatus(position: index + 1, member: id.rawValue, name: m.displayName, priority: m.priority)
        }
        return ChannelDetail(
            id: channel.id.description, name: channel.name, imageURL: channel.imageURL,
            floor: snapshot?.holder == nil ? "idle" : "taken",
            speaker: snapshot?.holder.flatMap { directory.memberships[$0] }.map(memberStatus),
            talkTimeLeftMs: snapshot?.talkTimeLeft.map { Int($0.milliseconds) },
            queue: queue, members: directory.members(of: channel.id).map(memberStatus))
    }

    func createChannel(_ request: CreateChannelRequest) throws(AdminError) -> ChannelSummary {
        let channel: Channel
        do {
            channel = try directory.planCreateChannel(name: request.name, imageURL: request.imageURL, now: wallClock.now())
        } catch {
            if case .channelExists = error { throw AdminError(.conflict, error.description) }
            throw AdminError(.badRequest, error.description)
        }
        try adminCommit([.putChannel(channel)])
        logger.info("channel created", metadata: ["channel": "\(channel.name)", "id": "\(channel.id)"])
        return ChannelSummary(id: channel.id.description, name: channel.name, imageURL: channel.imageURL, members: 0, connected: 0,
                              floor: "idle", speaker: nil, queueLength: 0)
    }

    func deleteChannel(_ reference: String) throws(AdminError) {
        let channel = try adminChannel(reference)
        let members = directory.members(of: channel.id)
        try adminCommit([.removeChannel(channel.id)])
        floorTimers.removeValue(forKey: channel.id)?.cancel()
        floors[channel.id] = nil
        burstEnded(in: channel.id)
        for member in members { sendLeave(to: member, reason: "channel-deleted") }
        let left = ControlMessage.left(Left(channel: channelInfo(channel), reason: "channel-deleted"))
        for member in members { for session in allSessions(of: member) { session.send(left) } }
        logger.info("channel deleted", metadata: ["channel": "\(channel.name)", "members": "\(members.count)"])
    }

    func kick(channel reference: String, member memberReference: String) throws(AdminError) {
        let channel = try adminChannel(reference)
        guard let member = directory.findMember(memberReference, in: channel.id) else {
            throw AdminError(.notFound, "no single member '\(memberReference)' in channel '\(channel.name)'")
        }
        do { try endMembership(member, in: channel, reason: "kicked") } catch {
            throw AdminError(.internal, "could not store the change: \(Store.describe(error))")
        }
        metrics.kicks.increment()
    }

    func revokeFloor(_ reference: String) throws(AdminError) {
        let channel = try adminChannel(reference)
        guard floors[channel.id]?.holder != nil else { throw AdminError(.conflict, "the floor of '\(channel.name)' is idle") }
        floorEvent(channel.id) { floor, now in floor.revoke(now: now) }
    }

    func listUsers() -> [UserStatus] {
        let counts = Dictionary(grouping: directory.memberships.values, by: \.user).mapValues(\.count)
        return directory.users.values.sorted { $0.name < $1.name }.map {
            UserStatus(name: $0.name, priority: $0.priority, receiveOnly: $0.receiveOnly, memberships: counts[$0.name] ?? 0,
                       createdAt: Self.iso8601($0.createdAt))
        }
    }

    func addUser(_ request: AddUserRequest) throws(AdminError) -> AddUserResponse {
        let secret = SecretHasher.generateSecret()
        let salt = SecretHasher.makeSalt()
        let user: User
        do {
            user = try directory.planAddUser(User(
                name: request.name, secretHash: SecretHasher.hash(secret: secret, salt: salt), salt: salt,
                priority: request.priority ?? 0, receiveOnly: request.receiveOnly ?? false, createdAt: wallClock.now()))
        } catch {
            if case .userExists = error { throw AdminError(.conflict, error.description) }
            throw AdminError(.badRequest, error.description)
        }
        try adminCommit([.putUser(user)])
        logger.info("user added", metadata: ["user": "\(user.name)", "priority": "\(user.priority)", "receiveOnly": "\(user.receiveOnly)"])
        return AddUserResponse(name: user.name, secret: secret)
    }

    func removeUser(_ name: String) throws(AdminError) {
        let memberships: [Membership]
        do { memberships = try directory.planRemoveUser(name) } catch { throw AdminError(.notFound, error.description) }
        for membership in memberships {
            guard let channel = directory.channels[membership.channel] else { continue }
            do { try endMembership(membership, in: channel, reason: "user-removed") } catch {
                throw AdminError(.internal, "could not store the change: \(Store.describe(error))")
            }
        }
        try adminCommit([.removeUser(name)])
        for (key, id) in sessionByKey where key.device.user == name {
            sessions[id]?.session.close(with: ErrorFrame(code: .badCredentials, message: "user '\(name)' was removed"))
        }
        logger.info("user removed", metadata: ["user": "\(name)", "memberships": "\(memberships.count)"])
    }

    private func adminCommit(_ changes: [DirectoryChange]) throws(AdminError) {
        do { try commit(changes) } catch { throw AdminError(.internal, "could not store the change: \(Store.describe(error))") }
    }
}
