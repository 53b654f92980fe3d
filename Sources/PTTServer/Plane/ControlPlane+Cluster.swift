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

    /// Reloads the directory from storage, in turn with this node's own writes (``DirectoryWrites``), and applies
    /// what changed; this node's sessions are told what they would have been told had the change been made here:
    /// members that joined or left, memberships and channels that ended, users removed. On a storage failure it
    /// tries again a second later.
    func followStoredDirectory() {
        eventLoop.preconditionInEventLoop()
        storedDirectoryReloadPending.withLockedValue { $0 = false }
        writes.reload { loaded in
            guard !loaded else { return }
            self.eventLoop.scheduleTask(in: .seconds(1)) { self.storedDirectoryChanged() }
        }
    }

    /// Loads the stored directory (on the storage's thread), applies what changed and tells this node's sessions
    /// (as ``followStoredDirectory()``), then calls `done`; on a storage failure it changes nothing, logs, and calls
    /// `done(false)`. Only ``DirectoryWrites`` calls this, between its writes.
    func loadStoredDirectory(then done: @escaping (Bool) -> Void) {
        eventLoop.preconditionInEventLoop()
        storage.run { try $0.load() }.whenComplete { result in
            switch result {
            case .success(let fresh):
                self.follow(fresh)
                done(true)
            case .failure(let error):
                self.logger.warning(
                    "cannot reload the directory another node changed",
                    metadata: ["error": "\(self.storage.describe(error))"])
                done(false)
            }
        }
    }

    /// Applies what changed from the directory in memory to `fresh` (as stored), and tells this node's sessions.
    private func follow(_ fresh: ChannelDirectory) {
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
        for id in goneChannels { run(floors.remove(id)) }
        for change in changes {
            switch change {
            case .removeMembership(let id):
                guard let membership = before.memberships[id], let channel = before.channels[membership.channel]
                else { continue }
                // Ended through another node: the stored directory tells a deleted channel or user, not a kick from
                // a leave.
                let reason: LeaveReason =
                    goneChannels.contains(channel.id)
                    ? .channelDeleted : changes.contains(.removeUser(membership.user)) ? .userRemoved : .removed
                for session in sessions.allSessions(of: membership) {
                    session.send(.left(Left(channel: ChannelInfo(channel), reason: reason)))
                }
                guard !goneChannels.contains(channel.id) else { continue }
                run([.floor(channel.id, .memberLeft(membership.id))])
                broadcast(
                    .memberLeft(MemberEvent(channel: ChannelInfo(channel), member: MemberInfo(membership))),
                    to: directory.membersTold(in: channel.id))
            case .removeUser(let name):
                run([.userRemoved(name)])
            case .putChannel(let channel):
                run(emergencies.followed(channel, before: before.channels[channel.id]))
            case .putMembership(let membership) where before.memberships[membership.id] == nil:
                guard let channel = directory.channels[membership.channel] else { continue }
                broadcast(
                    .memberJoined(MemberEvent(channel: ChannelInfo(channel), member: MemberInfo(membership))),
                    to: directory.membersTold(in: channel.id).filter { $0.id != membership.id })
            default:
                continue
            }
        }
    }
}
