import Foundation
import PTTCore
import PTTProtocol
import PTTRelay

/// Broadcasts (Docs/PROTOCOL.md 5.42–5.44, 7.9): a member whose user has the broadcast right talks on its channel
/// to that channel and others at once. The sender takes its channel's floor at ``FloorUrgency/broadcast``; the other
/// channels' floors are taken from their holders and locked (``Floors`` denies requests there while ``lock(of:)``
/// names a broadcast); the relay sends the sender's packets on to them (``RelayBroadcast``), where each is that
/// channel's burst: recorded, woken for (`kind: broadcast`) and caught up with. It lasts as long as the sender holds
/// its floor (``floorLeft(_:by:after:)``). Nothing is stored: a restart ends every broadcast with its floors.
final class Broadcasts {
    /// A broadcast running: what its members are told, its plan, the channels still in it (an emergency takes a
    /// channel out), and the memberships that get no copy (``BroadcastPlan/skips(in:directory:)``, as they stand).
    struct Running {
        var info: BroadcastInfo
        var plan: BroadcastPlan
        var channels: [ChannelID]
        var skips: [ChannelID: Set<MemberID>]
    }

    unowned let plane: ControlPlane
    /// Running broadcasts, by the sender's channel.
    var running: [ChannelID: Running] = [:]
    /// The broadcast (its sender's channel) that holds each other channel.
    private var lockedBy: [ChannelID: ChannelID] = [:]

    init(plane: ControlPlane) {
        self.plane = plane
    }

    /// The broadcast that locks `channel`'s floor (its sender's channel), nil when none does.
    func lock(of channel: ChannelID) -> ChannelID? { lockedBy[channel] }

    /// Whether a broadcast is sent from `channel` (its floor's changes may end it).
    func isSending(from channel: ChannelID) -> Bool { running[channel] != nil }

    /// The broadcast a burst in `channel` belongs to: one sent from it, or one that holds it.
    func info(of channel: ChannelID) -> BroadcastInfo? { running[lockedBy[channel] ?? channel]?.info }

    /// `broadcast`: planned from the directory as it stands (nothing is stored), then the sender's floor is asked
    /// for at broadcast urgency; once it holds it the broadcast begins.
    func start(
        _ request: BroadcastRequest, device: SessionTable.DeviceKey, from session: ControlSession
    )
        -> [PlaneEffect]
    {
        guard plane.cluster == nil else {
            return [
                .error(
                    session, re: request.id, .unavailable,
                    "broadcasts run on a single server for now, not across a cluster (Docs/CLUSTER.md)")
            ]
        }
        let directory = plane.directory
        let plan: BroadcastPlan
        let source: PTTCore.Channel
        let sender: Membership
        do {
            (source, sender) = try device.membership(in: request.channel, of: directory)
            plan = try BroadcastPlan.plan(
                sender: sender, source: source, to: request.to ?? [], all: request.all == true, directory: directory,
                maxChannels: BroadcastRequest.maxChannels, busy: busy)
        } catch let refusal as JoinPlan.Refusal {
            return [.error(session, re: request.id, refusal.code, refusal.message)]
        } catch let refusal as BroadcastPlan.Refusal {
            return [.error(session, re: request.id, Self.code(of: refusal), refusal.message)]
        } catch {
            return [.error(session, re: request.id, .internal, "\(error)")]
        }
        let all = [plan.source] + plan.targets
        let info = BroadcastInfo(
            id: UUID().uuidString.lowercased(), speaker: MemberInfo(sender),
            channels: all.compactMap { directory.channels[$0]?.name },
            since: PushFrames.milliseconds(plane.context.wallClock.now()))
        // Running before the floor is asked for: the grant's wake in the sender's channel is the broadcast's.
        running[plan.source] = Running(info: info, plan: plan, channels: all, skips: plan.skips)
        return [
            .requestFloor(Floors.Requester(member: sender.id, session: session, broadcast: true), in: plan.source),
            .beginBroadcast(plan.source, re: request.id, session: session),
        ]
    }

    /// The sender asked for its floor: if it holds it, the other channels give way and are locked, the relay carries
    /// the audio to them, each records and wakes for it, and every member is told; if not, the broadcast is refused.
    func begin(_ source: ChannelID, re: Int?, session: ControlSession) -> [PlaneEffect] {
        guard let broadcast = running[source] else { return [] }
        let plan = broadcast.plan
        guard plane.floors[source]?.holder == plan.sender else {
            running[source] = nil
            let name = plane.directory.channels[source]?.name ?? source.description
            return [
                .error(session, re: re, .channelBusy, "the floor of '\(name)' could not be taken for the broadcast")
            ]
        }
        var effects: [PlaneEffect] = []
        for target in plan.targets {
            lockedBy[target] = plan.source
            effects.append(.floor(target, .giveWayToBroadcast))
        }
        effects.append(.relay([.broadcast(plan.source, Self.relayBroadcast(broadcast), grace: grace)]))
        for target in plan.targets {
            effects.append(.recordBurst(target, speaker: plan.sender))
            effects.append(.wakeForBurst(target, speaker: plan.sender))
        }
        if let source = plane.directory.channels[plan.source] {
            effects.append(
                .send(
                    .broadcastStarted(
                        BroadcastStarted(re: re, channel: ChannelInfo(source), broadcast: broadcast.info)),
                    to: session))
        }
        for channel in broadcast.channels {
            guard let found = plane.directory.channels[channel] else { continue }
            let event = ControlMessage.broadcastStarted(
                BroadcastStarted(channel: ChannelInfo(found), broadcast: broadcast.info))
            effects.append(.broadcastToChannel(event, channel, excluding: channel == plan.source ? plan.sender : nil))
        }
        plane.context.metrics.broadcasts.began()
        plane.logger.notice(
            "broadcast started",
            metadata: [
                "broadcast": "\(broadcast.info.id)", "speaker": "\(broadcast.info.speaker.name)",
                "channels": "\(broadcast.info.channels.joined(separator: ","))",
            ])
        return effects
    }

    /// The holder of `channel`'s floor changed from `member` (``Floors``): when that ends a broadcast's sender's
    /// hold, the broadcast ends.
    func floorLeft(_ channel: ChannelID, by member: MemberID, after event: FloorEvent) -> [PlaneEffect] {
        guard let broadcast = running[channel], broadcast.plan.sender == member else { return [] }
        let reason: BroadcastEndReason =
            switch event {
            case .revoke: .endedByOperator
            case .memberLeft: .left
            case .request: .preempted
            case .release, .talkHeard, .timersExpired, .giveWayToBroadcast: .released
            }
        return end(broadcast, reason: reason)
    }

    /// An emergency takes a locked channel: it leaves the broadcast, and its members are told. A device that heard
    /// the broadcast there and is in one of its later channels hears it there now.
    func leave(_ channel: ChannelID, reason: BroadcastEndReason) -> [PlaneEffect] {
        guard let source = lockedBy.removeValue(forKey: channel) else { return [] }
        running[source]?.channels.removeAll { $0 == channel }
        guard let broadcast = running[source], let found = plane.directory.channels[channel] else { return [] }
        let event = ControlMessage.broadcastEnded(
            BroadcastEnded(channel: ChannelInfo(found), broadcast: broadcast.info, reason: reason))
        return [.broadcastToChannel(event, channel, excluding: nil)] + servingChanged(of: source)
    }

    /// Ends a broadcast: the locks go, the relay stops carrying it (after the release grace for late packets), wakes
    /// still waiting for its bursts are dropped, and every member of its channels is told.
    private func end(_ broadcast: Running, reason: BroadcastEndReason) -> [PlaneEffect] {
        let source = broadcast.plan.source
        running[source] = nil
        var effects: [PlaneEffect] = [.relay([.broadcast(source, nil, grace: grace)])]
        for channel in broadcast.channels where channel != source {
            lockedBy[channel] = nil
            effects.append(.burstEnded(channel))
        }
        for channel in broadcast.channels {
            guard let found = plane.directory.channels[channel] else { continue }
            let event = ControlMessage.broadcastEnded(
                BroadcastEnded(channel: ChannelInfo(found), broadcast: broadcast.info, reason: reason))
            effects.append(.broadcastToChannel(event, channel, excluding: nil))
        }
        plane.context.metrics.broadcasts.ended(reason)
        plane.logger.notice(
            "broadcast ended", metadata: ["broadcast": "\(broadcast.info.id)", "reason": "\(reason.rawValue)"])
        return effects
    }

    /// `DELETE /api/broadcasts/ID`: an operator takes the sender's floor, which ends the broadcast.
    func endByOperator(_ id: String) throws(AdminError) {
        guard let broadcast = running.values.first(where: { $0.info.id == id }) else {
            throw AdminError(.notFound, "no broadcast '\(id)' is running")
        }
        plane.run([.floor(broadcast.plan.source, .revoke)])
    }

    /// Every broadcast running, oldest first (`GET /api/broadcasts`).
    func list() -> [BroadcastStatus] {
        running.values.sorted { ($0.info.since, $0.info.id) < ($1.info.since, $1.info.id) }.map { broadcast in
            BroadcastStatus(
                id: broadcast.info.id, speaker: broadcast.info.speaker.user, speakerName: broadcast.info.speaker.name,
                channels: broadcast.channels.compactMap { plane.directory.channels[$0]?.name },
                since: Date(timeIntervalSince1970: Double(broadcast.info.since) / 1000).iso8601)
        }
    }

    /// Why a channel cannot take part in a broadcast now, nil when it can.
    private func busy(_ channel: PTTCore.Channel) -> String? {
        if let emergency = plane.emergencies.emergency(of: channel) {
            return "in \(emergency.level.rawValue), declared by \(emergency.user)"
        }
        if lockedBy[channel.id] != nil || running[channel.id] != nil { return "in another broadcast" }
        return nil
    }

    var grace: Duration { plane.configuration.floor.releaseGrace }

    private static func code(of refusal: BroadcastPlan.Refusal) -> ErrorCode {
        switch refusal {
        case .notPermitted: .notPermitted
        case .receiveOnly, .noChannels, .tooMany, .privateCall: .badRequest
        case .noSuchChannel: .noSuchChannel
        case .busy: .channelBusy
        }
    }
}
