import Foundation
import NIOCore
import PTTCore
import PTTProtocol
import PTTStore

/// Operator announcements: stored per member (surviving restarts) until acknowledged or expired, handed to the
/// member's connection now and again on every new connection, at priority 5. What is stored and when it expires
/// is the pure ``AnnouncementBook``'s; handing over is the ``Notifier``'s.
final class Announcements {
    private unowned let plane: ControlPlane
    private(set) var book: AnnouncementBook
    /// The timer that removes stored announcements when they expire.
    private var expiryTimer: Scheduled<Void>?
    /// Announcements whose removal is on its way to storage: a repeated `push-ack`, or another hello finding them
    /// expired, queues nothing more (a client acknowledging in a loop costs no memory).
    private var removing: Set<String> = []

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
    func announce(_ channel: PTTCore.Channel, _ request: AnnounceRequest) -> EventLoopFuture<AnnounceResponse> {
        let promise = plane.eventLoop.makePromise(of: AnnounceResponse.self)
        let ttl: Duration
        let text: String
        do throws(AdminError) { (text, ttl) = try validate(request) } catch {
            promise.fail(error)
            return promise.futureResult
        }
        // In turn with the directory's writes: the members are those stored when it is written.
        plane.writes.inTurn(refused: { promise.fail(AdminError(.unavailable, $0.description)) }) { [self] in
            let now = context.wallClock.now()
            let expiresAt = now.addingTimeInterval(TimeInterval(ttl.components.seconds))
            let members = plane.directory.members(of: channel.id)
            let announcements = members.map {
                StoredAnnouncement(
                    id: UUID().uuidString.lowercased(), member: $0.id, channel: channel.id,
                    collapseID: request.collapseId, text: text, createdAt: now, expiresAt: expiresAt)
            }
            let plan = book.planAdd(announcements)
            return commit(plan.changes).map { [self] in
                let handed = stored(plan, announcements, in: channel)
                plane.logger.info(
                    "announcement stored",
                    metadata: [
                        "channel": "\(channel.name)", "members": "\(members.count)", "handed": "\(handed)",
                        "replaced": "\(plan.replaced.count)", "expires": "\(expiresAt.iso8601)",
                    ])
                promise.succeed(
                    AnnounceResponse(
                        channel: channel.name, members: members.count, handedNow: handed,
                        replaced: plan.replaced.count, expiresAt: expiresAt.iso8601))
            }.recover { [self] error in
                promise.fail(
                    AdminError(.internal, "could not store the announcement: \(plane.storage.describe(error))"))
            }
        }
        return promise.futureResult
    }

    /// The announcement's text and time to live, or why they are refused.
    private func validate(_ request: AnnounceRequest) throws(AdminError) -> (String, Duration) {
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
        return (text, ttl)
    }

    /// An announcement is stored: what it replaced or pushed out is counted and withdrawn, and it is handed to the
    /// members connected now. Returns how many it was handed to.
    private func stored(
        _ plan: AnnouncementPlan, _ announcements: [StoredAnnouncement], in channel: PTTCore.Channel
    ) -> Int {
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
        return handed
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

    /// Writes announcement changes on the storage's thread, then applies them; on a storage failure nothing
    /// changes and the future fails. Call it in turn (``DirectoryWrites/inTurn(_:)``).
    private func commit(_ changes: [AnnouncementChange]) -> EventLoopFuture<Void> {
        plane.storage.run { try $0.write(changes) }.map { [self] in
            book.apply(changes)
        }.flatMapErrorThrowing { [self] error in
            plane.logger.error("storage write failed", metadata: ["error": "\(plane.storage.describe(error))"])
            throw error
        }
    }

    /// Writes announcement changes in turn with the directory's writes, then applies them and runs `then`; on a
    /// storage failure nothing changes (it was logged).
    private func removeInTurn(_ ids: [String], then: @escaping () -> Void = {}) {
        let ids = ids.filter { !removing.contains($0) }
        guard !ids.isEmpty else { return }
        removing.formUnion(ids)
        let settled = { [self] in removing.subtract(ids) }
        plane.writes.inTurn(refused: { [self] _ in
            settled()
            plane.logger.warning(
                "announcements not removed: storage is not keeping up", metadata: ["ids": "\(ids.count)"])
        }) { [self] in commit(ids.map { .remove(id: $0) }).map(then).always { _ in settled() } }
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
            let member = membership.id
            removeInTurn([ack.id]) { [self] in
                plane.notifier.record(
                    PushRecord(kind: .announce, member: member, transport: .localPush, outcome: .acknowledged))
                armExpiry()
            }
            return
        }
    }

    /// A membership ended: its announcements went from storage with it.
    func forget(_ member: MemberID) { _ = book.removeMember(member) }

    /// Deletes expired announcements from storage and counts them.
    private func removeExpired(_ expired: [StoredAnnouncement]) {
        guard !expired.isEmpty else { return }
        removeInTurn(expired.map(\.id)) { [self] in
            for announcement in expired {
                plane.notifier.record(
                    PushRecord(
                        kind: .announce, member: announcement.member, transport: .none, outcome: .expired,
                        reason: PushExpiry.ttl.rawValue))
            }
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
