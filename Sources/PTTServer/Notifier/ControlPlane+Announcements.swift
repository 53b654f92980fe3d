import APNs
import Foundation
import NIOCore
import PTTCore
import PTTProtocol
import PTTStore

/// Operator announcements: stored per member (surviving restarts) until acknowledged or expired, handed
/// to the member's connection now and again on every new connection, at priority 5.
extension ControlPlane {
    /// `POST /api/channels/NAME/announce`.
    func announce(_ reference: String, _ request: AnnounceRequest) throws(AdminError) -> AnnounceResponse {
        let channel = try adminChannel(reference)
        let text = request.text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty, text.utf8.count <= 1024 else {
            throw AdminError(.badRequest, "text must be 1 to 1024 bytes of UTF-8")
        }
        if let collapse = request.collapseId, collapse.isEmpty || collapse.utf8.count > 64 {
            throw AdminError(.badRequest, "collapseId must be 1 to 64 bytes")
        }
        let ttl = request.ttlSeconds.map { Duration.seconds($0) } ?? configuration.wake.announcementTTL
        guard ttl >= .seconds(1), ttl <= WakeConfiguration.maxAnnouncementTTL else {
            throw AdminError(.badRequest, "ttlSeconds must be 1 to \(WakeConfiguration.maxAnnouncementTTL.components.seconds)")
        }
        let now = wallClock.now()
        let expiresAt = now.addingTimeInterval(TimeInterval(ttl.components.seconds))
        let members = directory.members(of: channel.id)
        let announcements = members.map {
            StoredAnnouncement(id: UUID().uuidString.lowercased(), member: $0.id, channel: channel.id, collapseID: request.collapseId,
                               text: text, createdAt: now, expiresAt: expiresAt)
        }
        let plan = notifier.book.planAdd(announcements)
        do { try commitAnnouncements(plan.changes) } catch {
            throw AdminError(.internal, "could not store the announcement: \(Store.describe(error))")
        }
        for old in plan.overflowed {
            recordPush(.announce, member: old.member, transport: .none, outcome: .expired, reason: PushExpiry.overflow.rawValue)
        }
        // A replaced announcement still waiting in an outbox is not handed over any more.
        for old in plan.replaced { withdrawQueued(id: old.id) }
        var handed = 0
        for announcement in announcements {
            guard let membership = directory.memberships[announcement.member],
                  let session = pushProviderSession(of: membership) ?? appSession(of: membership) else { continue }
            queueAnnouncement(announcement, to: session, channel: channel)
            handed += 1
        }
        armAnnouncementExpiry()
        logger.info("announcement stored", metadata: ["channel": "\(channel.name)", "members": "\(members.count)", "handed": "\(handed)",
                                                      "replaced": "\(plan.replaced.count)", "expires": "\(Self.iso8601(expiresAt))"])
        return AnnounceResponse(channel: channel.name, members: members.count, handedNow: handed, replaced: plan.replaced.count,
                                expiresAt: Self.iso8601(expiresAt))
    }

    private func queueAnnouncement(_ announcement: StoredAnnouncement, to session: ControlSession, channel: PTTCore.Channel) {
        let left = announcement.expiresAt.timeIntervalSince(wallClock.now())
        let deadline = clock.now() + .milliseconds(Int64(max(0, left) * 1000))
        queuePush(OutboxItem(id: announcement.id, kind: .announce, member: announcement.member, priority: 5, deadline: deadline,
                             payload: PushFrames.announcement(announcement, channelName: channel.name)), to: session)
    }

    private func withdrawQueued(id: String) {
        for key in Array(notifier.outboxes.keys) where notifier.outboxes[key]!.remove(id: id) != nil {
            if notifier.outboxes[key]!.isEmpty { notifier.outboxes[key] = nil }
        }
    }

    /// Writes announcement changes to storage, then applies them; on a storage failure nothing changes.
    func commitAnnouncements(_ changes: [AnnouncementChange]) throws {
        do { try store.write(changes) } catch {
            logger.error("storage write failed", metadata: ["error": "\(error)"])
            throw error
        }
        notifier.book.apply(changes)
    }

    /// A session said hello: the stored announcements of its device's memberships are handed to it, when it
    /// is the device's push-provider connection, or its app connection while no push-provider is connected.
    func deliverStoredAnnouncements(to session: ControlSession, device: DeviceKey, role: ClientRole) {
        if role == .app, sessionByKey[SessionKey(device: device, role: .pushProvider)] != nil { return }
        let now = wallClock.now()
        var expired: [StoredAnnouncement] = []
        for membership in directory.memberships(user: device.user, device: device.device) {
            let (live, dead) = notifier.book.deliverable(to: membership.id, now: now)
            expired += dead
            guard let channel = directory.channels[membership.channel] else { continue }
            for announcement in live { queueAnnouncement(announcement, to: session, channel: channel) }
        }
        removeExpiredAnnouncements(expired)
    }

    /// `push-ack`: an acknowledged announcement is deleted; acknowledgements of wakes are only counted.
    func handlePushAck(_ ack: PushAck, device: DeviceKey) {
        for membership in directory.memberships(user: device.user, device: device.device) {
            guard notifier.book.announcement(ack.id, for: membership.id) != nil else { continue }
            do { try commitAnnouncements([.remove(id: ack.id)]) } catch { return }
            recordPush(.announce, member: membership.id, transport: .localPush, outcome: .acknowledged)
            armAnnouncementExpiry()
            return
        }
    }

    /// Deletes expired announcements from storage and counts them.
    func removeExpiredAnnouncements(_ expired: [StoredAnnouncement]) {
        guard !expired.isEmpty else { return }
        do { try commitAnnouncements(expired.map { .remove(id: $0.id) }) } catch { return }
        for announcement in expired {
            recordPush(.announce, member: announcement.member, transport: .none, outcome: .expired, reason: PushExpiry.ttl.rawValue)
        }
    }

    /// Arms a timer for the next announcement expiry (re-checked at least hourly, so a wall-clock jump is
    /// caught up with).
    func armAnnouncementExpiry() {
        notifier.expiryTimer?.cancel()
        notifier.expiryTimer = nil
        guard let next = notifier.book.nextExpiry else { return }
        let seconds = min(3600, max(0, next.timeIntervalSince(wallClock.now())))
        notifier.expiryTimer = eventLoop.scheduleTask(in: .milliseconds(Int64(seconds * 1000) + 10)) { [self] in
            notifier.expiryTimer = nil
            removeExpiredAnnouncements(notifier.book.expired(now: wallClock.now()))
            armAnnouncementExpiry()
        }
    }

    /// `GET /api/wakes`.
    func wakeTotals() -> WakeTotals {
        let wallNow = wallClock.now()
        let counts = notifier.ledger.counts.sorted { $0.key < $1.key }.map {
            WakeCount(kind: $0.key.kind.rawValue, transport: $0.key.transport.rawValue, outcome: $0.key.outcome.rawValue,
                      reason: $0.key.reason, count: $0.value)
        }
        return WakeTotals(
            since: Self.iso8601(notifier.startedAt), counts: counts, apnsConfigured: apns != nil,
            apnsEndpoint: configuration.apns?.baseURL,
            apnsBackoffUntil: notifier.apnsBackoff.isBackingOff(now: wallNow) ? notifier.apnsBackoff.until.map(Self.iso8601) : nil,
            apnsTokenAgeSeconds: apns?.providerTokenAge(now: wallNow).map { Int($0) },
            storedAnnouncements: notifier.book.count, pending: notifier.pending)
    }

    /// The last wake or leave of a member, for `GET /api/channels/NAME`.
    func lastWakeStatus(_ member: MemberID) -> LastWakeStatus? {
        notifier.ledger.last[member].map {
            LastWakeStatus(at: Self.iso8601($0.at), kind: $0.kind.rawValue, transport: $0.transport.rawValue, outcome: $0.outcome.rawValue,
                           reason: $0.reason, burst: $0.burst?.rawValue)
        }
    }
}
