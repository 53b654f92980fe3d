import Foundation
import PTTCore
import PTTProtocol
import PTTStore

/// The operations behind the admin API (``AdminRouter``), on the plane's event loop. Errors are ``AdminError``s
/// carrying their HTTP status. What they read is in `AdminOperations+Views`.
final class AdminOperations: @unchecked Sendable {
    // @unchecked: confined to the plane's event loop, like the plane.
    unowned let plane: ControlPlane

    init(plane: ControlPlane) {
        self.plane = plane
    }

    /// The directory with the joins waiting in a batch stored first: an operation sees every member told it
    /// joined (a channel deleted just after a join tells that member too).
    var directory: ChannelDirectory {
        plane.memberships.flushJoins()
        return plane.directory
    }

    /// A channel by name or id, or `not-found`.
    func channel(_ reference: String) throws(AdminError) -> Channel {
        guard let channel = directory.channel(named: reference) else {
            throw AdminError(.notFound, "no channel '\(reference)'")
        }
        return channel
    }

    /// `POST /api/channels`.
    func createChannel(_ request: CreateChannelRequest) throws(AdminError) -> ChannelSummary {
        let channel: Channel
        do {
            channel = try directory.planCreateChannel(
                name: request.name, imageURL: request.imageURL, now: plane.context.wallClock.now())
        } catch {
            if case .channelExists = error { throw AdminError(.conflict, error.description) }
            throw AdminError(.badRequest, error.description)
        }
        try commit([.putChannel(channel)])
        plane.logger.info("channel created", metadata: ["channel": "\(channel.name)", "id": "\(channel.id)"])
        return ChannelSummary(
            id: channel.id.description, name: channel.name, imageURL: channel.imageURL, members: 0, connected: 0,
            floor: "idle", speaker: nil, queueLength: 0)
    }

    /// `DELETE /api/channels/NAME`: every member is told (`left`, or a leave push), the floor goes.
    func deleteChannel(_ reference: String) throws(AdminError) {
        let channel = try channel(reference)
        let members = directory.members(of: channel.id)
        try commit([.removeChannel(channel.id)])
        plane.floors.remove(channel.id)
        for member in members { plane.notifier.sendLeave(to: member, reason: "channel-deleted") }
        let left = ControlMessage.left(Left(channel: ChannelInfo(channel), reason: "channel-deleted"))
        for member in members { for session in plane.sessions.allSessions(of: member) { session.send(left) } }
        plane.logger.info("channel deleted", metadata: ["channel": "\(channel.name)", "members": "\(members.count)"])
    }

    /// `DELETE /api/channels/NAME/members/MEMBER`.
    func kick(channel reference: String, member memberReference: String) throws(AdminError) {
        let channel = try channel(reference)
        guard let member = directory.findMember(memberReference, in: channel.id) else {
            throw AdminError(.notFound, "no single member '\(memberReference)' in channel '\(channel.name)'")
        }
        do { try plane.memberships.end(member, in: channel, reason: "kicked") } catch {
            throw AdminError(.internal, "could not store the change: \(plane.store.describe(error))")
        }
        plane.context.metrics.channels.kicks.increment()
    }

    /// `POST /api/channels/NAME/revoke`.
    func revokeFloor(_ reference: String) throws(AdminError) {
        let channel = try channel(reference)
        if let owner = plane.remoteOwner(of: channel.id) {
            // The owner runs the floor: it revokes, and its floor event tells every node.
            guard plane.cluster?.remoteFloors[channel.id]?.holder != nil else {
                throw AdminError(.conflict, "the floor of '\(channel.name)' is idle")
            }
            guard plane.sendToOwner(.floorRevoke(NodeFloorChannel(channel: channel.id)), owner: owner) else {
                throw AdminError(
                    .unavailable, "the floor of '\(channel.name)' runs on node '\(owner)', which cannot be reached now")
            }
            return
        }
        guard plane.floors[channel.id]?.holder != nil else {
            throw AdminError(.conflict, "the floor of '\(channel.name)' is idle")
        }
        plane.floors.event(channel.id) { floor, now in floor.revoke(now: now) }
    }

    /// `POST /api/channels/NAME/announce`.
    func announce(_ reference: String, _ request: AnnounceRequest) throws(AdminError) -> AnnounceResponse {
        try plane.announcements.announce(try channel(reference), request)
    }

    /// `POST /api/users`: the secret is returned once and stored only as a salted hash.
    func addUser(_ request: AddUserRequest) throws(AdminError) -> AddUserResponse {
        let secret = SecretHasher.generateSecret()
        let salt = SecretHasher.makeSalt()
        let user: User
        do {
            user = try directory.planAddUser(
                User(
                    name: request.name, secretHash: SecretHasher.hash(secret: secret, salt: salt), salt: salt,
                    priority: request.priority ?? 0, receiveOnly: request.receiveOnly ?? false,
                    createdAt: plane.context.wallClock.now()))
        } catch {
            if case .userExists = error { throw AdminError(.conflict, error.description) }
            throw AdminError(.badRequest, error.description)
        }
        try commit([.putUser(user)])
        plane.logger.info(
            "user added",
            metadata: ["user": "\(user.name)", "priority": "\(user.priority)", "receiveOnly": "\(user.receiveOnly)"])
        return AddUserResponse(name: user.name, secret: secret)
    }

    /// `DELETE /api/users/NAME`: its memberships end and its connections close.
    func removeUser(_ name: String) throws(AdminError) {
        let memberships: [Membership]
        do { memberships = try directory.planRemoveUser(name) } catch { throw AdminError(.notFound, error.description) }
        for membership in memberships {
            guard let channel = directory.channels[membership.channel] else { continue }
            do { try plane.memberships.end(membership, in: channel, reason: "user-removed") } catch {
                throw AdminError(.internal, "could not store the change: \(plane.store.describe(error))")
            }
        }
        try commit([.removeUser(name)])
        plane.signInLinks.userRemoved(name)
        for session in plane.sessions.sessions(ofUser: name) {
            session.close(with: ErrorFrame(code: .badCredentials, message: "user '\(name)' was removed"))
        }
        plane.logger.info("user removed", metadata: ["user": "\(name)", "memberships": "\(memberships.count)"])
    }

    /// Stores `changes` and applies them. Another node's change to the same rows (a cluster: the same channel created
    /// on two nodes at once, say) is a 409 `conflict`: the directory is loaded again, so that a retry plans against it.
    private func commit(_ changes: [DirectoryChange]) throws(AdminError) {
        do { try plane.commit(changes) } catch let conflict as StorageConflict {
            try? plane.reloadStoredDirectory()
            throw AdminError(.conflict, "\(conflict); try again")
        } catch {
            throw AdminError(.internal, "could not store the change: \(plane.store.describe(error))")
        }
    }
}
