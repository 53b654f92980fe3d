/// What turns one directory into another: a node of a cluster reloads the stored directory when another node
/// changed it, and applies the difference as if it had made the changes itself.
extension ChannelDirectory {
    /// The changes that make this directory equal to `other`, in an order ``apply(_:)`` and
    /// ``diff(of:)`` take as they are: memberships that went, then channels and users that went, then channels and
    /// users that are new or changed, then memberships that are new or changed. Each list is sorted (by id or
    /// name), so the same two directories always give the same changes; none when they are equal.
    public func changes(to other: ChannelDirectory) -> [DirectoryChange] {
        var changes: [DirectoryChange] = []
        for id in memberships.keys.sorted() where other.memberships[id] == nil {
            changes.append(.removeMembership(id))
        }
        for id in channels.keys.sorted(by: { $0.description < $1.description }) where other.channels[id] == nil {
            changes.append(.removeChannel(id))
        }
        for name in users.keys.sorted() where other.users[name] == nil {
            changes.append(.removeUser(name))
        }
        for (id, channel) in other.channels.sorted(by: { $0.key.description < $1.key.description })
        where channels[id] != channel {
            changes.append(.putChannel(channel))
        }
        for (name, user) in other.users.sorted(by: { $0.key < $1.key }) where users[name] != user {
            changes.append(.putUser(user))
        }
        for (id, membership) in other.memberships.sorted(by: { $0.key < $1.key }) where memberships[id] != membership {
            changes.append(.putMembership(membership))
        }
        return changes
    }
}
