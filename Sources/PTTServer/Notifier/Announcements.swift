import Foundation
import NIOCore
import PTTCore
import PTTProtocol
import PTTStore

/// Operator announcements: stored per member (surviving restarts) until acknowledged or expired, handed to the
/// member's connection now and again on every new connection, at priority 5. What is stored and when it expires
/// is the pure ``AnnouncementBook``'s; handing over is the ``Notifier``'s.
final class Announcements: @unchecked Sendable {
    // @unchecked: confined to the plane's event loop, like the plane.
    private unowned let plane: ControlPlane
    private(set) var book: AnnouncementBook
    /// The timer that removes stored announcements when they expire.
    private var expiryTimer: Scheduled<Void>?

    init(plane: ControlPlane) {
        self.plane = plane
        book = AnnouncementBook(perMemberLimit: plane.configuration.wake.storedPerMember, stored: [])
    }

    private var context: PlaneContext { plane.context }

    /// The announcements loaded from storage at start.
    func restore(_ stored: [StoredAnnouncement]) {
        book = AnnouncementBook(perMemberLimit: plane.configuration.wake.storedPerMember, stored: stored)
    }

    /// A configuration reload: how many announcements each member keeps, from its next one on.
    func reconfigure() {
        book.perMemberLimit = plane.configuration.wake.storedPerMember
    }

    /// `POST /api/channels/NAME/announce`.
    func announce(_ channel: PTTCore.Channel, _ request: AnnounceRequest) throws(AdminError) -> AnnounceResponse {
        let text = request.text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty, text.utf8.count <= 1024 else {
            throw AdminError(.badRequest, "text must be 1 to 1024 bytes of UTF-8")
        }
        if let collapse = request.collapseId, collapse.isEmpty || collapse.utf8.count > 64 {
            throw AdminError(.badRequest, "collapseId must be 1 to 64 bytes")
        }
        let ttl = request.ttlSeconds.map { Duration.seconds($0) } ?? plane.configuration.wake.announcementTTL
        guard ttl >= .seconds(1), ttl <= WakeConfiguration.maxAnnouncementTTL else {
            throw AdminError(
                .badRequest, "ttlSeconds must be 1 to \(WakeConfiguration.maxAnnouncementTTL.components.seconds)")
        }
        let now = context.wallClock.now()
        let expiresAt = now.addingTimeInterval(TimeInterval(ttl.components.seconds))
        let members = plane.directory.members(of: channel.id)
        let announcements = members.map {
            StoredAnnouncement(
                id: UUID().uuidString.lowercased(), member: $0.id, channel: channel.id, collapseID: request.collapseId,
                text: text, createdAt: now, expiresAt: expiresAt)
        }
        let plan = book.planAdd(announcements)
        do { try commit(plan.changes) } catch {
            throw AdminError(.internal, "could not store the announcement: \(plane.store.describe(error))")
        }
        for old in plan.overflowed {
            plane.notifier.record(
                PushRecord(
                    kind: .announce, member: old.member, transport: .none, outcome: .expired,
                    reason: PushExpiry.overflow.rawValue))
        }
        // A replaced announcement still waiting in an outbox is not handed over any more.
        for old in plan.replaced { plane.notifier.withdraw(id: old.id) }
        var handed = 0
        for announcement in announcements {
            guard let membership = plane.directory.memberships[announcement.member],
                let session = plane.sessions.pushProviderSession(of: membership)
                    ?? plane.sessions.appSession(of: membership)
            else { continue }
            queue(announcement, to: session, channel: channel)
            handed += 1
        }
        armExpiry()
        plane.logger.info(
            "announcement stored",
            metadata: [
                "channel": "\(channel.name)", "members": "\(members.count)", "handed": "\(handed)",
                "replaced": "\(plan.replaced.count)", "expires": "\(expiresAt.iso8601)",
            ])
        return AnnounceResponse(
            channel: channel.name, members: members.count, handedNow: handed, replaced: plan.replaced.count,
            expiresAt: expiresAt.iso8601)
    }

    private func queue(_ announcement: StoredAnnouncement, to session: ControlSession, channel: PTTCore.Channel) {
        let left = announcement.expiresAt.timeIntervalSince(context.wallClock.now())
        let deadline = context.clock.now() + .milliseconds(Int64(max(0, left) * 1000))
        plane.notifier.queue(
            OutboxItem(
                id: announcement.id, kind: .announce, member: announcement.member, priority: 5,
                deadline: deadline, payload: PushFrames.announcement(announcement, channelName: channel.name)),
            to: session)
    }

    /// Writes announcement changes to storage, then applies them; on a storage failure nothing changes.
    private func commit(_ changes: [AnnouncementChange]) throws {
        do { try plane.store.write(changes) } catch {
            plane.logger.error("storage write failed", metadata: ["error": "\(error)"])
            throw error
        }
        book.apply(changes)
    }

    /// A session said hello: the stored announcements of its device's memberships are handed to it, when it is
    /// the device's push-provider connection, or its app connection while no push-provider is connected.
    func deliverStored(to session: ControlSession, device: SessionTable.DeviceKey, role: ClientRole) {
        if role == .app, plane.sessions.session(of: device, role: .pushProvider) != nil { return }
        let now = context.wallClock.now()
        var expired: [StoredAnnouncement] = []
        for membership in plane.directory.memberships(user: device.user, device: device.device) {
            let (live, dead) = book.deliverable(to: membership.id, now: now)
            expired += dead
            guard let channel = plane.directory.channels[membership.channel] else { continue }
            for announcement in live { queue(announcement, to: session, channel: channel) }
        }
        removeExpired(expired)
    }

    /// `push-ack`: an acknowledged announcement is deleted; acknowledgements of wakes are only counted.
    func acknowledged(_ ack: PushAck, device: SessionTable.DeviceKey) {
        for membership in plane.directory.memberships(user: device.user, device: device.device) {
            guard book.announcement(ack.id, for: membership.id) != nil else { continue }
            do { try commit([.remove(id: ack.id)]) } catch { return }
            plane.notifier.record(
                PushRecord(kind: .announce, member: membership.id, transport: .localPush, outcome: .acknowledged))
            armExpiry()
            return
        }
    }

    /// A membership ended: its announcements went from storage with it.
    func forget(_ member: MemberID) { _ = book.removeMember(member) }

    /// Deletes expired announcements from storage and counts them.
    private func removeExpired(_ expired: [StoredAnnouncement]) {
        guard !expired.isEmpty else { return }
        do { try commit(expired.map { .remove(id: $0.id) }) } catch { return }
        for announcement in expired {
            plane.notifier.record(
                PushRecord(
                    kind: .announce, member: announcement.member, transport: .none, outcome: .expired,
                    reason: PushExpiry.ttl.rawValue))
        }
    }

    /// Arms a timer for the next announcement expiry (re-checked at least hourly, so a wall-clock jump is caught
    /// up with).
    func armExpiry() {
        expiryTimer?.cancel()
        expiryTimer = nil
        guard let next = book.nextExpiry else { return }
        let seconds = min(3600, max(0, next.timeIntervalSince(context.wallClock.now())))
        expiryTimer = context.eventLoop.scheduleTask(in: .milliseconds(Int64(seconds * 1000) + 10)) { [self] in
            expiryTimer = nil
            removeExpired(book.expired(now: context.wallClock.now()))
            armExpiry()
        }
    }

    /// The server stops: the expiry timer is cancelled (announcements stay stored).
    func stop() {
        expiryTimer?.cancel()
        expiryTimer = nil
    }
}
