import PTTCore
import PTTRelay

extension ControlPlane {
    /// The relay's view of a membership.
    static func relayMember(_ membership: Membership) -> RelayMemberConfig {
        RelayMemberConfig(id: membership.id, channel: membership.channel, ssrc: membership.ssrc, listenSSRC: membership.listenSSRC,
                          key: membership.mediaKey, suite: membership.mediaSuite, receiveOnly: membership.receiveOnly)
    }

    /// What a set of directory changes changes for the relay, in order: joins and leaves, never a whole
    /// channel again. Computed before the changes are applied to `directory`.
    static func relayChanges(for changes: [DirectoryChange], in directory: ChannelDirectory) -> [RelayChange] {
        var updates: [RelayChange] = []
        for change in changes {
            switch change {
            case .removeChannel(let id): updates.append(.removeChannel(id))
            case .putMembership(let membership): updates.append(.join(relayMember(membership)))
            case .removeMembership(let id): updates.append(.leave(id))
            case .removeUser(let name):
                updates.append(contentsOf: directory.memberships.values.filter { $0.user == name }.map { .leave($0.id) })
            case .putChannel, .putUser: break
            }
        }
        return updates
    }

    /// Tells the relay who may send on a channel.
    func syncRelayFloor(_ channel: ChannelID) {
        relay?.apply([.floor(channel, holder: floors[channel]?.holder)])
    }

    /// Every membership and floor, at start.
    func syncRelayAll() {
        var updates = directory.memberships.values.map { RelayChange.join(Self.relayMember($0)) }
        updates.append(contentsOf: floors.compactMap { channel, floor in floor.holder.map { .floor(channel, holder: $0) } })
        relay?.apply(updates)
    }

    /// Whether the relay heard the member within the silence timeout.
    func audioReachable(_ member: MemberID) -> Bool {
        guard let heard = heardMedia[member] else { return false }
        return clock.now().since(heard) < configuration.mediaSilenceTimeout
    }

    /// Memberships that a set of directory changes removes, directly or with their channel or user.
    static func memberships(removedBy changes: [DirectoryChange], in directory: ChannelDirectory) -> Set<MemberID> {
        var removed = Set<MemberID>()
        for change in changes {
            switch change {
            case .removeMembership(let id): removed.insert(id)
            case .removeChannel(let id): removed.formUnion(directory.members(of: id).map(\.id))
            case .removeUser(let name): removed.formUnion(directory.memberships.values.filter { $0.user == name }.map(\.id))
            case .putChannel, .putMembership, .putUser: break
            }
        }
        return removed
    }

    /// A report from the relay: media restarts T1 for the holder; the first media on an idle floor is an
    /// implicit floor request (when configured).
    func relayReported(_ report: RelayReport) {
        eventLoop.preconditionInEventLoop()
        switch report {
        case .heard(let member, let channel, let talking, let dropped):
            guard let membership = directory.memberships[member], membership.channel == channel else { return }
            heardMedia[member] = clock.now()
            mediaDroppedNotHolder[member] = dropped
            guard talking else { return }
            if floors[channel]?.holder == member {
                floorEvent(channel) { floor, now in floor.mediaReceived(from: member, now: now) }
            } else if floors[channel]?.holder == nil, configuration.implicitFloorRequest, !membership.receiveOnly {
                let candidate = FloorCandidate(member: member, priority: membership.priority, receiveOnly: membership.receiveOnly)
                let count = directory.memberCount(of: channel)
                floorEvent(channel) { floor, now in floor.request(candidate, memberCount: count, now: now) }
            }
        }
    }
}
