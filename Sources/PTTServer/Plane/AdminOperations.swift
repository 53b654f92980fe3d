import Foundation
import NIOCore
import PTTCore
import PTTProtocol
import PTTStore

/// The operations behind the admin API (``AdminRouter``), on the plane's event loop. Errors are ``AdminError``s
/// carrying their HTTP status. What they read is in `AdminOperations+Views`.
final class AdminOperations {
    unowned let plane: ControlPlane

    init(plane: ControlPlane) {
        self.plane = plane
    }

    /// The directory as stored: what the admin API reads. A change plans in its turn (``change(_:)``), after every
    /// join and change made before it is stored.
    var directory: ChannelDirectory { plane.directory }

    /// A channel by name or id, or `not-found`.
    func channel(_ reference: String) throws(AdminError) -> PTTCore.Channel {
        try Self.channel(reference, in: directory)
    }

    static func channel(_ reference: String, in directory: ChannelDirectory) throws(AdminError) -> PTTCore.Channel {
        guard let channel = directory.channel(named: reference) else {
            throw AdminError(.notFound, "no channel '\(reference)'")
        }
        return channel
    }

    /// `POST /api/channels`.
    func createChannel(_ request: CreateChannelRequest) -> EventLoopFuture<ChannelSummary> {
        plane.writes.change { directory throws(AdminError) in
            let channel: PTTCore.Channel
            do {
                channel = try directory.planCreateChannel(
                    name: request.name, imageURL: request.imageURL, now: self.plane.context.wallClock.now())
            } catch let error as DirectoryError {
                if case .channelExists = error { throw AdminError(.conflict, error.description) }
                throw AdminError(.badRequest, error.description)
            } catch {
                throw AdminError(.badRequest, "\(error)")
            }
            return (
                [.putChannel(channel)],
                {
                    self.plane.logger.info(
                        "channel created", metadata: ["channel": "\(channel.name)", "id": "\(channel.id)"])
                    return ChannelSummary(
                        id: channel.id.description, name: channel.name, imageURL: channel.imageURL, members: 0,
                        connected: 0,
                        floor: .idle, speaker: nil, queueLength: 0)
                }
            )
        }
    }

    /// `DELETE /api/channels/NAME`: every member is told (`left`, or a leave push), the floor goes.
    func deleteChannel(_ reference: String) -> EventLoopFuture<Void> {
        plane.writes.change { directory throws(AdminError) in
            let channel = try Self.channel(reference, in: directory)
            let members = directory.members(of: channel.id)
            return (
                [.removeChannel(channel.id)],
                {
                    let left = ControlMessage.left(Left(channel: ChannelInfo(channel), reason: .channelDeleted))
                    self.plane.run(
                        [.floorRemoved(channel.id)] + members.map { .pushLeave($0, .channelDeleted) }
                            + members.flatMap { member in
                                self.plane.sessions.allSessions(of: member).map { PlaneEffect.send(left, to: $0) }
                            })
                    if channel.emergency != nil {
                        self.plane.context.metrics.channels.emergencyCleared(by: .channelDeleted)
                    }
                    self.plane.logger.info(
                        "channel deleted", metadata: ["channel": "\(channel.name)", "members": "\(members.count)"])
                }
            )
        }
    }

    /// `DELETE /api/channels/NAME/members/MEMBER`.
    func kick(channel reference: String, member memberReference: String) -> EventLoopFuture<Void> {
        plane.writes.change { directory throws(AdminError) in
            let channel = try Self.channel(reference, in: directory)
            guard let member = directory.findMember(memberReference, in: channel.id) else {
                throw AdminError(.notFound, "no single member '\(memberReference)' in channel '\(channel.name)'")
            }
            return (
                [.removeMembership(member.id)],
                {
                    self.plane.run([.membershipEnded(member, in: channel, reason: .kicked)])
                    self.plane.context.metrics.channels.kicks.increment()
                }
            )
        }
    }

    /// `POST /api/channels/NAME/revoke`.
    func revokeFloor(_ reference: String) throws(AdminError) {
        let channel = try channel(reference)
        if let cluster = plane.cluster, let owner = cluster.remoteOwner(of: channel.id) {
            // The owner runs the floor: it revokes, and its floor event tells every node.
            guard cluster.remoteFloors[channel.id]?.holder != nil else {
                throw AdminError(.conflict, "the floor of '\(channel.name)' is idle")
            }
            guard cluster.sendToOwner(.floorRevoke(NodeFloorChannel(channel: channel.id)), owner: owner) else {
                throw AdminError(
                    .unavailable, "the floor of '\(channel.name)' runs on node '\(owner)', which cannot be reached now")
            }
            return
        }
        guard plane.floors[channel.id]?.holder != nil else {
            throw AdminError(.conflict, "the floor of '\(channel.name)' is idle")
        }
        plane.run([.floor(channel.id, .revoke)])
    }

    /// `POST /api/users`: the secret is returned once and stored only as a salted hash.
    func addUser(_ request: AddUserRequest) -> EventLoopFuture<AddUserResponse> {
        if let unknown = request.rights?.first(where: { !$0.isKnown }) {
            return plane.eventLoop.makeFailedFuture(Self.unknownRight(unknown))
        }
        let secret = SecretHasher.generateSecret()
        let salt = SecretHasher.makeSalt()
        let hash = SecretHasher.hash(secret: secret, salt: salt)
        return plane.writes.change { directory throws(AdminError) in
            let user: User
            do {
                user = try directory.planAddUser(
                    User(
                        name: request.name, secretHash: hash, salt: salt, priority: request.priority ?? 0,
                        receiveOnly: request.receiveOnly ?? false, createdAt: self.plane.context.wallClock.now(),
                        rights: UserRights(request.rights ?? [])))
            } catch let error as DirectoryError {
                if case .userExists = error { throw AdminError(.conflict, error.description) }
                throw AdminError(.badRequest, error.description)
            } catch {
                throw AdminError(.badRequest, "\(error)")
            }
            return (
                [.putUser(user)],
                {
                    self.plane.logger.info(
                        "user added",
                        metadata: [
                            "user": "\(user.name)", "priority": "\(user.priority)",
                            "receiveOnly": "\(user.receiveOnly)", "rights": "\(user.rights.listed.map(\.rawValue))",
                        ])
                    return AddUserResponse(name: user.name, secret: secret)
                }
            )
        }
    }

    /// `PUT /api/users/NAME/rights`: the user's rights from now on. An emergency it declared stays until cleared.
    func setRights(_ name: String, _ request: UserRightsRequest) -> EventLoopFuture<UserStatus> {
        if let unknown = request.rights.first(where: { !$0.isKnown }) {
            return plane.eventLoop.makeFailedFuture(Self.unknownRight(unknown))
        }
        return plane.writes.change { directory throws(AdminError) in
            guard var user = directory.users[name] else { throw AdminError(.notFound, "no user '\(name)'") }
            user.rights = UserRights(request.rights)
            let memberships = directory.memberships.values.reduce(0) { $0 + ($1.user == name ? 1 : 0) }
            return (
                [.putUser(user)],
                {
                    self.plane.logger.info(
                        "user rights set",
                        metadata: ["user": "\(name)", "rights": "\(user.rights.listed.map(\.rawValue))"])
                    return Self.userStatus(user, memberships: memberships)
                }
            )
        }
    }

    private static func unknownRight(_ right: UserRight) -> AdminError {
        AdminError(
            .badRequest,
            "unknown right '\(right.rawValue)': \(UserRight.known.map(\.rawValue).joined(separator: " or "))")
    }

    /// `DELETE /api/users/NAME`: its memberships end and its connections close.
    func removeUser(_ name: String) -> EventLoopFuture<Void> {
        plane.writes.change { directory throws(AdminError) in
            let memberships: [Membership]
            do { memberships = try directory.planRemoveUser(name) } catch {
                throw AdminError(.notFound, "\(error)")
            }
            let ended = memberships.compactMap { m in directory.channels[m.channel].map { (m, $0) } }
            return (
                memberships.map { .removeMembership($0.id) } + [.removeUser(name)],
                {
                    self.plane.run(
                        ended.map { .membershipEnded($0, in: $1, reason: .userRemoved) } + [.userRemoved(name)])
                    self.plane.logger.info(
                        "user removed", metadata: ["user": "\(name)", "memberships": "\(memberships.count)"])
                }
            )
        }
    }
}
