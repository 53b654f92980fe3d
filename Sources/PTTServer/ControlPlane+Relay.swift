import PTTCore

extension ControlPlane {
    /// The relay's view of a channel, from the directory and the floor.
    func relayConfig(_ channel: ChannelID) -> RelayChannelConfig {
        RelayChannelConfig(
            channel: channel,
            members: directory.members(of: channel).map {
                RelayMemberConfig(id: $0.id, ssrc: $0.ssrc, listenSSRC: $0.listenSSRC, key: $0.mediaKey, receiveOnly: $0.receiveOnly)
            },
            holder: floors[channel]?.holder)
    }

    /// Pushes the current state of these channels to the relay.
    func syncRelay(_ channels: some Sequence<ChannelID>) {
        guard let relay else { return }
        for channel in channels {
            if directory.channels[channel] == nil {
                relay.remove(channel)
            } else {
                relay.update(relayConfig(channel))
            }
        }
    }

    /// Whether the relay heard the member within the silence timeout.
    func audioReachable(_ member: MemberID) -> Bool {
        guard let heard = heardMedia[member] else { return false }
        return clock.now().since(heard) < configuration.mediaSilenceTimeout
    }

    /// Every channel, at start.
    func syncRelayAll() { syncRelay(directory.channels.keys) }

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

    /// Channels touched by a set of directory changes, given the memberships they remove.
    static func channels(touchedBy changes: [DirectoryChange], removing removed: Set<MemberID>, in directory: ChannelDirectory) -> Set<ChannelID> {
        var touched = Set(removed.compactMap { directory.memberships[$0]?.channel })
        for change in changes {
            switch change {
            case .putChannel(let c): touched.insert(c.id)
            case .removeChannel(let id): touched.insert(id)
            case .putMembership(let m): touched.insert(m.channel)
            case .removeMembership, .removeUser, .putUser: break
            }
        }
        return touched
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
