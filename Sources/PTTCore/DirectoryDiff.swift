/// What a batch of ``DirectoryChange``s does to memberships: the steps the media relay must take, in
/// order, and every membership the batch ends.
///
/// Made by ``ChannelDirectory/diff(of:)`` before the changes are applied, so the memberships a user or
/// channel removal ends can still be looked up.
public struct DirectoryDiff: Sendable, Equatable {
    /// One step for the media relay.
    public enum Step: Sendable, Equatable {
        /// A membership is new or changed (its keys, SSRC, receive-only flag…): the relay takes it as it is.
        case join(Membership)
        /// A membership ended on its own (``DirectoryChange/removeMembership(_:)``) or with its user.
        case leave(MemberID)
        /// A channel is deleted, with every membership in it.
        case removeChannel(ChannelID)
    }

    /// The relay's steps, in the order of the changes: joins and leaves, never a whole channel again.
    public var steps: [Step]
    /// Every membership the changes end: removed directly, with its user, or with its channel.
    public var removedMembers: Set<MemberID>

    /// Creates a diff.
    public init(steps: [Step] = [], removedMembers: Set<MemberID> = []) {
        self.steps = steps
        self.removedMembers = removedMembers
    }
}

extension ChannelDirectory {
    /// What `changes` do to memberships, computed from this directory as it is before they are applied.
    ///
    /// Each change in turn:
    /// - ``DirectoryChange/putMembership(_:)``: ``DirectoryDiff/Step/join(_:)``, for a new membership
    ///   and for an update of an existing one alike.
    /// - ``DirectoryChange/removeMembership(_:)``: ``DirectoryDiff/Step/leave(_:)``, and the member is
    ///   removed.
    /// - ``DirectoryChange/removeUser(_:)``: a ``DirectoryDiff/Step/leave(_:)`` for every membership of
    ///   that user in this directory (oldest first), and those members are removed.
    /// - ``DirectoryChange/removeChannel(_:)``: ``DirectoryDiff/Step/removeChannel(_:)``, and the
    ///   channel's members in this directory are removed.
    /// - ``DirectoryChange/putChannel(_:)``, ``DirectoryChange/putUser(_:)``: nothing.
    ///
    /// Memberships are looked up in this directory only, never in earlier changes of the batch: a
    /// membership put earlier in the same batch is neither left nor in ``DirectoryDiff/removedMembers``
    /// when a later change of the batch removes its user or channel.
    public func diff(of changes: [DirectoryChange]) -> DirectoryDiff {
        var diff = DirectoryDiff()
        for change in changes {
            switch change {
            case .putMembership(let membership):
                diff.steps.append(.join(membership))
            case .removeMembership(let id):
                diff.steps.append(.leave(id))
                diff.removedMembers.insert(id)
            case .removeUser(let name):
                let ids = memberships.values.filter { $0.user == name }.sorted(by: Self.olderFirst).map(\.id)
                diff.steps.append(contentsOf: ids.map(DirectoryDiff.Step.leave))
                diff.removedMembers.formUnion(ids)
            case .removeChannel(let id):
                diff.steps.append(.removeChannel(id))
                diff.removedMembers.formUnion(members(of: id).map(\.id))
            case .putChannel, .putUser:
                break
            }
        }
        return diff
    }
}
