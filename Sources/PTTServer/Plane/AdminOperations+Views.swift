import APNs
import Foundation
import NIOCore
import PTTCore
import PTTProtocol

/// What the admin API reads: channels, members, users and the notifier's accounts.
extension AdminOperations {
    /// `GET /api/channels`: in a cluster with each channel's owner, read on the storage's thread.
    func listChannels() -> EventLoopFuture<[ChannelSummary]> {
        channelOwners().map { [self] in listChannels(owners: $0) }
    }

    /// Talk groups only: a private call's channel is shown as a call (Docs/CALLS-DESIGN.md).
    private func listChannels(owners: [String: String]) -> [ChannelSummary] {
        directory.channels.values.filter { $0.kind == .group }.sorted { $0.name < $1.name }.map { channel in
            let members = directory.members(of: channel.id)
            let floor = plane.floors[channel.id]
            if plane.cluster?.remoteOwner(of: channel.id) != nil {
                let state = plane.floors.state(of: channel.id)
                return ChannelSummary(
                    id: channel.id.description, name: channel.name, imageURL: channel.imageURL, members: members.count,
                    connected: members.filter { plane.sessions.appSession(of: $0) != nil }.count,
                    floor: state.state, speaker: state.holder?.name, queueLength: state.queueLength,
                    owner: owners[channel.id.description], emergency: channel.emergency.map { EmergencyGrade($0.level) }
                )
            }
            return ChannelSummary(
                id: channel.id.description, name: channel.name, imageURL: channel.imageURL, members: members.count,
                connected: members.filter { plane.sessions.appSession(of: $0) != nil }.count,
                floor: floor?.holder == nil ? .idle : .taken,
                speaker: floor?.holder.flatMap { directory.memberships[$0]?.displayName },
                queueLength: floor?.queue.count ?? 0, owner: owners[channel.id.description],
                emergency: channel.emergency.map { EmergencyGrade($0.level) })
        }
    }

    /// `GET /api/channels/NAME`.
    func channelDetail(_ reference: String) throws(AdminError) -> ChannelDetail {
        let channel = try channel(reference)
        if plane.cluster?.remoteOwner(of: channel.id) != nil {
            return remoteDetail(channel, plane.floors.state(of: channel.id))
        }
        let snapshot = plane.floors[channel.id]?.snapshot(now: plane.context.clock.now())
        let queue = (snapshot?.queue ?? []).enumerated().compactMap { index, id -> QueueEntryStatus? in
            guard let m = directory.memberships[id] else { return nil }
            return QueueEntryStatus(position: index + 1, member: id.rawValue, name: m.displayName, priority: m.priority)
        }
        return ChannelDetail(
            id: channel.id.description, name: channel.name, imageURL: channel.imageURL,
            floor: snapshot?.holder == nil ? .idle : .taken,
            speaker: snapshot?.holder.flatMap { directory.memberships[$0] }.map(memberStatus),
            talkTimeLeftMs: snapshot?.talkTimeLeft.map { Int($0.milliseconds) },
            queue: queue, members: directory.members(of: channel.id).map(memberStatus),
            recording: plane.recordings.isRecorded(channel), nodeLinks: plane.cluster?.relayedNodes(of: channel.id),
            emergency: emergencyStatus(channel))
    }

    /// A channel's emergency as the admin API shows it.
    private func emergencyStatus(_ channel: PTTCore.Channel) -> ChannelEmergencyStatus? {
        channel.emergency.map {
            ChannelEmergencyStatus(
                level: EmergencyGrade($0.level), member: $0.member.rawValue, user: $0.user,
                name: directory.memberships[$0.member]?.displayName, since: $0.since.iso8601)
        }
    }

    /// A channel whose floor another node runs, as its last floor event showed it.
    private func remoteDetail(_ channel: PTTCore.Channel, _ state: FloorState) -> ChannelDetail {
        let queue = state.queue.enumerated().compactMap { index, id -> QueueEntryStatus? in
            guard let m = directory.memberships[MemberID(id)] else { return nil }
            return QueueEntryStatus(position: index + 1, member: id, name: m.displayName, priority: m.priority)
        }
        return ChannelDetail(
            id: channel.id.description, name: channel.name, imageURL: channel.imageURL, floor: state.state,
            speaker: state.holder.flatMap { directory.memberships[MemberID($0.id)] }.map(memberStatus),
            talkTimeLeftMs: state.talkTimeLeftMs, queue: queue,
            members: directory.members(of: channel.id).map(memberStatus),
            recording: plane.recordings.isRecorded(channel), nodeLinks: plane.cluster?.relayedNodes(of: channel.id),
            emergency: emergencyStatus(channel))
    }

    /// A member as the admin API shows it: connections, media, wakes.
    func memberStatus(_ m: Membership) -> MemberStatus {
        let device = SessionTable.DeviceKey(m)
        let roles = plane.sessions.liveRoles(of: device)
        return MemberStatus(
            id: m.id.rawValue, name: m.displayName, user: m.user, device: m.device, priority: m.priority,
            receiveOnly: m.receiveOnly,
            connected: roles.contains(.app), connections: roles.map(\.rawValue),
            pushToken: plane.notifier.pushToken(of: m) != nil,
            audioReachable: plane.relayLink.heardAnywhere(m.id),
            droppedNotHolder: plane.relayLink.droppedPackets(of: m.id),
            lastHeartbeat: plane.sessions.lastHeartbeat[device]?.iso8601,
            joinedAt: m.joinedAt.iso8601, ssrc: m.ssrc,
            wakeRoute: WakeTransport(rawValue: plane.notifier.wakeRoute(m).rawValue),
            lastWake: lastWake(of: m.id), scanRank: plane.scans.rank(of: m))
    }

    /// `GET /api/users`.
    func listUsers() -> [UserStatus] {
        let counts = Dictionary(grouping: directory.memberships.values, by: \.user).mapValues(\.count)
        return directory.users.values.sorted { $0.name < $1.name }.map {
            Self.userStatus($0, memberships: counts[$0.name] ?? 0)
        }
    }

    /// A user as `GET /api/users` lists it.
    static func userStatus(_ user: User, memberships: Int) -> UserStatus {
        UserStatus(
            name: user.name, priority: user.priority, receiveOnly: user.receiveOnly, memberships: memberships,
            createdAt: user.createdAt.iso8601, rights: user.rights.listed)
    }

    /// `GET /api/wakes`.
    func wakeTotals() -> WakeTotals {
        let notifier = plane.notifier
        let context = plane.context
        let wallNow = context.wallClock.now()
        let counts = notifier.ledger.counts.sorted { $0.key < $1.key }.map {
            WakeCount(
                kind: WakeKind(rawValue: $0.key.kind.rawValue),
                transport: WakeTransport(rawValue: $0.key.transport.rawValue),
                outcome: WakeOutcome(rawValue: $0.key.outcome.rawValue),
                reason: $0.key.reason, count: $0.value)
        }
        let backoff = notifier.dispatcher.backoff
        return WakeTotals(
            since: notifier.startedAt.iso8601, counts: counts, apnsConfigured: context.apns != nil,
            apnsEndpoint: context.configuration.apns?.baseURL,
            apnsBackoffUntil: backoff.isBackingOff(now: wallNow) ? backoff.until?.iso8601 : nil,
            apnsTokenAgeSeconds: context.apns?.providerTokenAge(now: wallNow).map { Int($0) },
            storedAnnouncements: plane.announcements.book.count, pending: notifier.dispatcher.pending)
    }

    /// The last wake or leave of a member.
    private func lastWake(of member: MemberID) -> LastWakeStatus? {
        plane.notifier.ledger.last[member].map {
            LastWakeStatus(
                at: $0.at.iso8601, kind: WakeKind(rawValue: $0.kind.rawValue),
                transport: WakeTransport(rawValue: $0.transport.rawValue),
                outcome: WakeOutcome(rawValue: $0.outcome.rawValue),
                reason: $0.reason, burst: $0.burst?.rawValue)
        }
    }
}
