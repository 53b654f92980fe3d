import PTTCore

/// What a set of directory changes does to memberships, computed before the changes are applied.
struct DirectoryDiff {
    enum Step { case join(Membership), leave(MemberID), removeChannel(ChannelID) }
    var steps: [Step] = []
    var removedMembers = Set<MemberID>()
}

extension ChannelDirectory {
    func diff(of changes: [DirectoryChange]) -> DirectoryDiff {
        var diff = DirectoryDiff()
        for change in changes {
            switch change {
            case .removeChannel(let id):
                diff.steps.append(.removeChannel(id))
                diff.removedMembers.formUnion(members(of: id).map(\.id))
            case .putMembership(let membership): diff.steps.append(.join(membership))
            case .removeMembership(let id):
                diff.steps.append(.leave(id))
                diff.removedMembers.insert(id)
            case .removeUser(let name):
                let ids = memberships.values.filter { $0.user == name }.map(\.id)
                diff.steps.append(contentsOf: ids.map { .leave($0) })
                diff.removedMembers.formUnion(ids)
            case .putChannel, .putUser: break
            }
        }
        return diff
    }
}
