import NIOCore
import PTTCore
import PTTProtocol

/// A cluster node's plane follows the stored directory: another node's joins, leaves, users and channels reach
/// this node's relay, floors and sessions as if made here.
extension ControlPlane {
    /// Another node changed the directory, or a reload is due (a reconnect): reloads it on the plane's loop, once
    /// for any number of calls made before it runs. Callable from any thread.
    func storedDirectoryChanged() {
        let schedule = storedDirectoryReloadPending.withLockedValue { pending -> Bool in
            defer { pending = true }
            return !pending
        }
        if schedule { eventLoop.execute { self.followStoredDirectory() } }
    }

    /// Reloads the directory from storage and applies what changed; this node's sessions are told what they
    /// would have been told had the change been made here: members that joined or left, memberships and channels
    /// that ended, users removed. On a storage failure it tries again a second later.
    func followStoredDirectory() {
        eventLoop.preconditionInEventLoop()
        storedDirectoryReloadPending.withLockedValue { $0 = false }
        memberships.flushJoins()
        do { try reloadStoredDirectory() } catch {
            logger.warning(
                "cannot reload the directory another node changed: trying again in 1 s",
                metadata: ["error": "\(store.describe(error))"])
            eventLoop.scheduleTask(in: .seconds(1)) { self.storedDirectoryChanged() }
        }
    }

    /// Loads the stored directory and applies what changed, telling this node's sessions (as
    /// ``followStoredDirectory()``); throws, changing nothing, if storage fails. Joins waiting in a batch are not
    /// stored first: a batch that met another node's change (``StorageConflict``) calls this before planning again.
    func reloadStoredDirectory() throws {
        eventLoop.preconditionInEventLoop()
        let fresh = try store.load()
        context.metrics.cluster.directoryReloads.increment()
        let before = directory
        let changes = before.changes(to: fresh)
        guard !changes.isEmpty else { return }
        applyStored(changes)
        tellSessions(changes, before: before)
        logger.debug("followed the stored directory", metadata: ["changes": "\(changes.count)"])
    }

    /// The channels (ids) that members connected to this node are in: the channels this node should own when
    /// nobody does.
    func localChannelIDs() -> [String] {
        eventLoop.preconditionInEventLoop()
        var channels = Set<ChannelID>()
        for record in sessions.records.values {
            guard let device = record.key?.device else { continue }
            for membership in directory.memberships(user: device.user, device: device.device) {
                channels.insert(membership.channel)
            }
        }
        return channels.map(\.description).sorted()
    }

    private func tellSessions(_ changes: [DirectoryChange], before: ChannelDirectory) {
        let goneChannels = Set(
            changes.compactMap { change -> ChannelID? in
                if case .removeChannel(let id) = change { return id } else { return nil }
            })
        for id in goneChannels { floors.remove(id) }
        for change in changes {
            switch change {
            case .removeMembership(let id):
                guard let membership = before.memberships[id], let channel = before.channels[membership.channel]
                else { continue }
                let reason = goneChannels.contains(channel.id) ? "channel-deleted" : "removed"
                for session in sessions.allSessions(of: membership) {
                    session.send(.left(Left(channel: ChannelInfo(channel), reason: reason)))
                }
                guard !goneChannels.contains(channel.id) else { continue }
                floors.event(channel.id) { floor, now in floor.memberLeft(membership.id, now: now) }
                broadcast(
                    .memberLeft(MemberEvent(channel: ChannelInfo(channel), member: MemberInfo(membership))),
                    to: directory.members(of: channel.id).filter(\.memberEvents))
            case .removeUser(let name):
                signInLinks.userRemoved(name)
                for session in sessions.sessions(ofUser: name) {
                    session.close(with: ErrorFrame(code: .badCredentials, message: "user '\(name)' was removed"))
                }
            case .putMembership(let membership) where before.memberships[membership.id] == nil:
                guard let channel = directory.channels[membership.channel] else { continue }
                broadcast(
                    .memberJoined(MemberEvent(channel: ChannelInfo(channel), member: MemberInfo(membership))),
                    to: directory.members(of: channel.id).filter { $0.memberEvents && $0.id != membership.id })
            default:
                continue
            }
        }
    }
}
