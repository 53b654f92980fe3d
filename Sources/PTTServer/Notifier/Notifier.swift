import Foundation
import NIOCore
import PTTCore
import PTTProtocol

/// The wake notifier: who is woken and how (the pure ``WakePolicy``), and the handing over of wakes, leaves and
/// announcements to connections and APNs (the pure ``PushDispatcher``), whose actions this executes: writes,
/// APNs requests, the sweep timer, and the accounts (ledger, `/metrics`, log).
final class Notifier {
    unowned let plane: ControlPlane
    private var policy: WakePolicy
    /// Changed only by the notifier's own methods.
    var dispatcher: PushDispatcher<PushFrame>
    /// Outcomes by kind, transport and reason, and each member's last wake (admin API).
    private(set) var ledger = WakeLedger<Date>()
    /// Since when the ledger counts.
    let startedAt: Date
    private var sweepTimer: Scheduled<Void>?
    /// Tokens APNs refused as dead, by member, while their removal is being stored: no wake goes to them meanwhile.
    var deadTokens: [MemberID: [UInt8]] = [:]

    init(plane: ControlPlane) {
        self.plane = plane
        let wake = plane.configuration.wake
        policy = WakePolicy(configuration: wake)
        dispatcher = PushDispatcher(
            outboxCapacity: wake.outboxCapacity, apnsConcurrency: wake.apnsConcurrency,
            apnsConfigured: plane.context.apns != nil)
        startedAt = plane.context.wallClock.now()
    }

    var context: PlaneContext { plane.context }

    /// A configuration reload: the wake settings and whether APNs is configured, for what is decided from now on.
    func reconfigure() {
        let wake = plane.configuration.wake
        policy.configuration = wake
        dispatcher.reconfigure(
            outboxCapacity: wake.outboxCapacity, apnsConcurrency: wake.apnsConcurrency,
            apnsConfigured: context.apns != nil)
    }

    /// How a member would be woken now.
    func wakeRoute(_ membership: Membership) -> WakeRoute {
        WakeRoute.choose(
            localPushConnected: plane.sessions.pushProviderSession(of: membership) != nil
                || plane.cluster?.pushNode(of: membership.id) != nil,
            hasPushToken: pushToken(of: membership) != nil, apnsConfigured: context.apns != nil)
    }

    /// The member's APNs token, unless APNs refused it and its removal is on its way to storage.
    func pushToken(of membership: Membership) -> [UInt8]? {
        guard let token = membership.pushToken, deadTokens[membership.id] != token else { return nil }
        return token
    }

    /// A member took the floor: a new talk burst. Members that cannot hear it are woken, once. While the channel is
    /// in emergency, every member whose app is not connected is woken (the relay may still hear a suspended app's
    /// socket), and the wake carries the emergency.
    func burstStarted(in channel: ChannelID, speaker: MemberID) {
        let directory = plane.directory
        guard let speakerMembership = directory.memberships[speaker] else { return }
        var random = SecureRandom()
        let burst = BurstID.random(using: &random)
        let emergency = directory.channels[channel].flatMap(plane.emergencies.emergency(of:))
        let candidates = directory.members(of: channel).map {
            let heard = plane.relayLink.heardAnywhere($0.id)
            return WakeCandidate(
                member: $0.id, audioReachable: heard && (emergency == nil || plane.sessions.appSession(of: $0) != nil),
                route: wakeRoute($0))
        }
        let emergencyState = emergency.map { EmergencyState($0, in: directory) }
        let broadcast = plane.broadcasts.info(of: channel)
        let (decisions, ended) = policy.burstStarted(
            burst, in: channel, speaker: speaker, candidates: candidates, now: context.clock.now())
        if let ended { execute(dispatcher.burstEnded(ended)) }
        let sentAt = context.wallClock.now()
        var woken: [MemberID] = []
        var unreachable: [PushExpiry: [MemberID]] = [:]
        for decision in decisions {
            switch decision {
            case .expired(let member, _, let reason):
                unreachable[reason, default: []].append(member)
            case .wake(let order):
                guard let membership = directory.memberships[order.member] else { continue }
                let frame = PushFrames.wake(
                    channel: channel, speaker: speakerMembership.displayName, burst: burst, sentAt: sentAt,
                    emergency: emergencyState, broadcast: broadcast)
                woken.append(order.member)
                handOver(
                    OutboxItem(
                        id: frame.id, kind: .wake, member: order.member, priority: frame.priority,
                        deadline: order.deadline, burst: burst, payload: frame), to: membership, via: order.route)
            }
        }
        if !woken.isEmpty { plane.relayLink.send([.woken(channel, woken)]) }
        for (reason, members) in unreachable { recordUnreachable(members, burst: burst, reason: reason) }
        if !decisions.isEmpty {
            plane.logger.info(
                "waking members for a talk burst",
                metadata: [
                    "channel": "\(directory.channels[channel]?.name ?? channel.description)", "burst": "\(burst)",
                    "speaker": "\(speakerMembership.displayName)", "woken": "\(woken.count)",
                    "unreachable": "\(decisions.count - woken.count)",
                ])
        }
    }

    /// The floor of a channel went idle: the burst ends, and wakes still waiting for it are dropped.
    func burstEnded(in channel: ChannelID) {
        if let ended = policy.burstEnded(in: channel) { execute(dispatcher.burstEnded(ended)) }
    }

    /// A membership was ended by someone else (kicked, channel deleted, user removed): a device whose app is not
    /// connected is told to leave the channel with a pushtotalk push (zero expiry). Takes the membership as it was,
    /// so its push token is still known after it is removed.
    func sendLeave(to membership: Membership, reason: LeaveReason) {
        guard plane.sessions.appSession(of: membership) == nil else { return }  // a connected app gets `left`
        let frame = PushFrames.leave(channel: membership.channel, reason: reason, sentAt: context.wallClock.now())
        handOver(
            OutboxItem(
                id: frame.id, kind: .leave, member: membership.id, priority: frame.priority,
                deadline: context.clock.now() + plane.configuration.wake.maxDelay, payload: frame),
            to: membership, via: wakeRoute(membership))
    }

    /// Queues a wake or leave on the member's route: its Local Push connection, or APNs with its token. With no
    /// route it expires at once.
    func handOver(_ item: OutboxItem<PushFrame>, to membership: Membership, via route: WakeRoute) {
        switch route {
        case .localPush:
            if let session = plane.sessions.pushProviderSession(of: membership) { return queue(item, to: session) }
            // Its extension is connected to another node of the cluster: that node writes the wake (and records it).
            if let cluster = plane.cluster, let node = cluster.pushNode(of: membership.id),
                cluster.sendWake(item, to: node)
            {
                return
            }
        case .apns:
            if let token = pushToken(of: membership) {
                return execute(
                    dispatcher.queueAPNs(item, token: token, now: context.clock.now(), wallNow: context.wallClock.now())
                )
            }
        case .none:
            break
        }
        record(
            PushRecord(
                kind: item.kind, member: membership.id, transport: .none, outcome: .expired,
                reason: PushExpiry.noRoute.rawValue, burst: item.burst))
    }

    /// A channel's owner on another node hands over a wake for a member whose Local Push connection is here.
    func wakeFromOwner(_ wake: NodeWake, from node: String) {
        let item = OutboxItem(
            id: wake.frame.id, kind: .wake, member: wake.member, priority: wake.frame.priority,
            deadline: context.clock.now() + Duration.milliseconds(wake.deadlineMs),
            burst: wake.burst.map(BurstID.init), payload: wake.frame)
        guard let membership = plane.directory.memberships[wake.member],
            let session = plane.sessions.pushProviderSession(of: membership)
        else {
            return record(PushRecord(expired: item, transport: .localPush, reason: .disconnected))
        }
        plane.logger.debug(
            "wake handed over by the channel's owner", metadata: ["node": "\(node)", "member": "\(wake.member)"])
        queue(item, to: session)
    }

    /// Queues a push for a connection.
    func queue(_ item: OutboxItem<PushFrame>, to session: ControlSession) {
        execute(dispatcher.queue(item, to: session.id, now: context.clock.now()))
    }

    /// Takes a push out of every connection's outbox (a replaced announcement).
    func withdraw(id: String) { execute(dispatcher.withdraw(id: id)) }

    /// A connection closed: what waited for it is dropped.
    func sessionClosed(_ session: ControlSession) { execute(dispatcher.connectionClosed(session.id)) }

    /// A membership ended: its last wake is forgotten.
    func forget(_ member: MemberID) {
        ledger.forget(member)
        deadTokens[member] = nil
    }

    /// The server stops: the sweep timer is cancelled.
    func stop() {
        execute(dispatcher.stop())
        sweepTimer?.cancel()
        sweepTimer = nil
    }

    /// Carries out the dispatcher's actions, in order.
    func execute(_ actions: [PushDispatcher<PushFrame>.Action]) {
        for action in actions {
            switch action {
            case .write(let item, let connection):
                guard let session = plane.sessions.records[connection]?.session else {
                    execute(
                        dispatcher.writeFinished(item, on: connection, error: "write: closed", now: context.clock.now())
                    )
                    continue
                }
                session.send(.push(item.payload)) { [plane] result in
                    plane.eventLoop.execute { plane.notifier.written(item, on: connection, result: result) }
                }
            case .sendAPNs(let item):
                send(item)
            case .record(let record):
                self.record(record)
            case .armSweep(let at):
                sweepTimer?.cancel()
                let when = NIODeadline.uptimeNanoseconds(at.nanoseconds) + .milliseconds(1)
                sweepTimer = context.eventLoop.scheduleTask(deadline: when) { [self] in
                    sweepTimer = nil
                    execute(dispatcher.sweep(now: context.clock.now()))
                }
            case .cancelSweep:
                sweepTimer?.cancel()
                sweepTimer = nil
            }
        }
    }

    private func written(_ item: OutboxItem<PushFrame>, on connection: UInt64, result: Result<Void, Error>) {
        var error: String?
        if case .failure(let failure) = result { error = "write: \(type(of: failure))" }
        execute(dispatcher.writeFinished(item, on: connection, error: error, now: context.clock.now()))
    }

    /// The members a burst could not wake, for one reason: each in the ledger (admin API), all of them counted in
    /// `/metrics` at once, and one log line in the burst's summary. (One ``record(_:)`` each cost a thousand-member
    /// channel of suspended members 6 ms of the plane's loop per burst.)
    private func recordUnreachable(_ members: [MemberID], burst: BurstID, reason: PushExpiry) {
        let now = context.wallClock.now()
        for member in members {
            ledger.record(
                .wake, member: member, transport: .none, outcome: .expired, reason: reason.rawValue, burst: burst,
                at: now)
        }
        context.metrics.pushes.count(
            kind: .wake, transport: .none, outcome: .expired, reason: reason.rawValue, times: members.count)
        plane.logger.debug(
            "wakes expired", metadata: ["reason": "\(reason.rawValue)", "members": "\(members.count)"])
    }

    /// Counts an outcome: in the ledger (admin API), in `/metrics`, and in the log for failures.
    func record(_ record: PushRecord) {
        let (kind, member, outcome, reason) = (record.kind, record.member, record.outcome, record.reason)
        ledger.record(
            kind, member: member, transport: record.transport, outcome: outcome, reason: reason, burst: record.burst,
            at: context.wallClock.now())
        if plane.directory.memberships[member] == nil { ledger.forget(member) }  // a leave outlives its membership
        context.metrics.pushes.count(kind: kind, transport: record.transport, outcome: outcome, reason: reason ?? "")
        let logger = plane.logger
        switch outcome {
        case .sent, .acknowledged:
            logger.debug(
                "push \(outcome.rawValue)",
                metadata: [
                    "kind": "\(kind.rawValue)", "member": "\(member)",
                    "transport": "\(record.transport.rawValue)",
                ])
        case .expired where reason == PushExpiry.noRoute.rawValue && kind == .wake:
            // Counted in the burst's summary line: one line per unreachable member would flood the log.
            logger.debug(
                "push expired",
                metadata: ["kind": "\(kind.rawValue)", "member": "\(member)", "reason": "\(reason ?? "-")"])
        case .expired, .rejected, .failed:
            logger.info(
                "push \(outcome.rawValue)",
                metadata: [
                    "kind": "\(kind.rawValue)", "member": "\(member)",
                    "transport": "\(record.transport.rawValue)", "reason": "\(reason ?? "-")",
                    "burst": "\(record.burst?.rawValue ?? "-")",
                ])
        }
    }
}
