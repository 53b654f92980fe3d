import Foundation
import PTTCore
import PTTProtocol

/// Who is woken and how: talk bursts start and end with the floor; leaves go out when a membership is
/// ended by someone else.
extension ControlPlane {
    /// The live push-provider (Local Push extension) session of a member's device.
    func pushProviderSession(of membership: Membership) -> ControlSession? {
        let key = SessionKey(device: DeviceKey(user: membership.user, device: membership.device), role: .pushProvider)
        return sessionByKey[key].flatMap { sessions[$0]?.session }
    }

    /// How a member would be woken now.
    func wakeRoute(_ membership: Membership) -> WakeRoute {
        WakeRoute.choose(localPushConnected: pushProviderSession(of: membership) != nil,
                         hasPushToken: membership.pushToken != nil, apnsConfigured: apns != nil)
    }

    /// A member took the floor: a new talk burst. Members that cannot hear it are woken, once.
    func burstStarted(in channel: ChannelID, speaker: MemberID) {
        guard let speakerMembership = directory.memberships[speaker] else { return }
        var random = SecureRandom()
        let burst = BurstID.random(using: &random)
        let candidates = directory.members(of: channel).map {
            WakeCandidate(member: $0.id, audioReachable: audioReachable($0.id), route: wakeRoute($0))
        }
        let now = clock.now()
        let (decisions, ended) = notifier.policy.burstStarted(burst, in: channel, speaker: speaker, candidates: candidates, now: now)
        if let ended { dropWaitingWakes(of: ended) }
        let sentAt = wallClock.now()
        var woken = 0
        for decision in decisions {
            switch decision {
            case .expired(let member, let burst, let reason):
                recordPush(.wake, member: member, transport: .none, outcome: .expired, reason: reason.rawValue, burst: burst)
            case .wake(let order):
                guard let membership = directory.memberships[order.member] else { continue }
                let frame = PushFrames.wake(channel: channel, speaker: speakerMembership.displayName, burst: burst, sentAt: sentAt)
                woken += 1
                handOver(OutboxItem(id: frame.id, kind: .wake, member: order.member, priority: frame.priority,
                                    deadline: order.deadline, burst: burst, payload: frame), to: membership, via: order.route)
            }
        }
        if !decisions.isEmpty {
            logger.info("waking members for a talk burst", metadata: [
                "channel": "\(directory.channels[channel]?.name ?? channel.description)", "burst": "\(burst)",
                "speaker": "\(speakerMembership.displayName)", "woken": "\(woken)", "unreachable": "\(decisions.count - woken)"])
        }
        armSweep()
    }

    /// The floor of a channel went idle: the burst ends, and wakes still waiting for it are dropped.
    func burstEnded(in channel: ChannelID) {
        if let ended = notifier.policy.burstEnded(in: channel) { dropWaitingWakes(of: ended) }
    }

    /// Drops every wake of a burst that is still waiting for its transport (zero expiry: never later).
    func dropWaitingWakes(of burst: BurstID) {
        expireWaiting(.burstEnded, local: { $0.expire(burst: burst) }, apns: { $0.expire(burst: burst) })
    }

    /// Queues a wake or leave on the member's route: its Local Push connection, or APNs with its token.
    /// With no route it expires at once.
    func handOver(_ item: OutboxItem<PushFrame>, to membership: Membership, via route: WakeRoute) {
        switch route {
        case .localPush:
            if let session = pushProviderSession(of: membership) { return queuePush(item, to: session) }
        case .apns:
            if let token = membership.pushToken { return queueAPNs(item, token: token) }
        case .none:
            break
        }
        recordPush(item.kind, member: membership.id, transport: .none, outcome: .expired, reason: PushExpiry.noRoute.rawValue, burst: item.burst)
    }

    /// A membership was ended by someone else (kicked, channel deleted, user removed): a device whose app is
    /// not connected is told to leave the channel with a pushtotalk push (zero expiry). Takes the membership
    /// as it was, so its push token is still known after it is removed.
    func sendLeave(to membership: Membership, reason: String) {
        guard appSession(of: membership) == nil else { return }  // a connected app gets `left`
        let frame = PushFrames.leave(channel: membership.channel, reason: reason, sentAt: wallClock.now())
        handOver(OutboxItem(id: frame.id, kind: .leave, member: membership.id, priority: frame.priority,
                            deadline: clock.now() + configuration.wake.maxDelay, payload: frame),
                 to: membership, via: wakeRoute(membership))
        armSweep()
    }

    /// Counts an outcome: in the ledger (admin API), in `/metrics`, and in the log for failures.
    func recordPush(_ kind: PushKind, member: MemberID, transport: WakeRoute, outcome: PushOutcome, reason: String? = nil, burst: BurstID? = nil) {
        notifier.ledger.record(kind, member: member, transport: transport, outcome: outcome, reason: reason, burst: burst, at: wallClock.now())
        if directory.memberships[member] == nil { notifier.ledger.forget(member) }  // a leave outlives its membership
        metrics.push(kind: kind, transport: transport, outcome: outcome, reason: reason ?? "")
        switch outcome {
        case .sent, .acknowledged:
            logger.debug("push \(outcome.rawValue)", metadata: ["kind": "\(kind.rawValue)", "member": "\(member)", "transport": "\(transport.rawValue)"])
        case .expired where reason == PushExpiry.noRoute.rawValue && kind == .wake:
            // Counted in the burst's summary line: one line per unreachable member would flood the log.
            logger.debug("push expired", metadata: ["kind": "\(kind.rawValue)", "member": "\(member)", "reason": "\(reason ?? "-")"])
        case .expired, .rejected, .failed:
            logger.info("push \(outcome.rawValue)", metadata: ["kind": "\(kind.rawValue)", "member": "\(member)", "transport": "\(transport.rawValue)",
                                                              "reason": "\(reason ?? "-")", "burst": "\(burst?.rawValue ?? "-")"])
        }
    }
}
