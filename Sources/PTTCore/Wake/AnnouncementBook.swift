import Foundation

/// An operator's announcement stored for one member until it is acknowledged or expires.
public struct StoredAnnouncement: Sendable, Equatable {
    /// Unique; also the id of the `push` frame that carries it, which the client acknowledges.
    public var id: String
    public var member: MemberID
    public var channel: ChannelID
    /// A newer announcement with the same collapse id replaces this one.
    public var collapseID: String?
    public var text: String
    public var createdAt: Date
    /// Not delivered after this (wall-clock time: it survives restarts).
    public var expiresAt: Date

    public init(
        id: String, member: MemberID, channel: ChannelID, collapseID: String?, text: String, createdAt: Date,
        expiresAt: Date
    ) {
        self.id = id
        self.member = member
        self.channel = channel
        self.collapseID = collapseID
        self.text = text
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}

/// A change to the stored announcements, written to storage before it is applied.
public enum AnnouncementChange: Sendable, Equatable {
    case put(StoredAnnouncement)
    case remove(id: String)
}

/// What adding announcements would change, and why items go.
public struct AnnouncementPlan: Sendable, Equatable {
    public var changes: [AnnouncementChange] = []
    /// Stored announcements replaced by a newer one with the same collapse id.
    public var replaced: [StoredAnnouncement] = []
    /// Stored announcements dropped because a member had too many.
    public var overflowed: [StoredAnnouncement] = []
}

/// The announcements stored for each member: collapse ids replace, the oldest goes when a member has too
/// many, expired ones are never delivered. Pure, wall-clock times passed in (they must survive restarts).
///
/// Like ``ChannelDirectory``: plan a change, write it to storage, then ``apply(_:)`` it.
public struct AnnouncementBook: Sendable {
    /// Replaced by a configuration reload: a member over a lowered limit loses its oldest at its next announcement.
    public var perMemberLimit: Int { didSet { perMemberLimit = max(1, perMemberLimit) } }
    /// Per member, oldest first.
    private(set) var byMember: [MemberID: [StoredAnnouncement]] = [:]

    public init(perMemberLimit: Int, stored: [StoredAnnouncement] = []) {
        self.perMemberLimit = max(1, perMemberLimit)
        for announcement in stored.sorted(by: Self.order) {
            byMember[announcement.member, default: []].append(announcement)
        }
    }

    static func order(_ a: StoredAnnouncement, _ b: StoredAnnouncement) -> Bool {
        (a.createdAt, a.id) < (b.createdAt, b.id)
    }

    /// How many are stored, over all members.
    public var count: Int { byMember.values.reduce(0) { $0 + $1.count } }

    /// Everything stored for a member, oldest first (expired ones included until removed).
    public func stored(for member: MemberID) -> [StoredAnnouncement] { byMember[member] ?? [] }

    /// Looks an announcement up by id for a member.
    public func announcement(_ id: String, for member: MemberID) -> StoredAnnouncement? {
        byMember[member]?.first { $0.id == id }
    }

    /// Plans storing new announcements (usually one per member): each replaces a stored one of its member
    /// with the same collapse id, and a member over the limit loses its oldest. Several for one member are
    /// planned in order, each seeing the ones before it, so the plan applied in order keeps the limit.
    public func planAdd(_ announcements: [StoredAnnouncement]) -> AnnouncementPlan {
        var plan = AnnouncementPlan()
        // What each member touched so far would hold once the changes planned so far are applied.
        var planned: [MemberID: [StoredAnnouncement]] = [:]
        for new in announcements {
            var kept = planned[new.member] ?? byMember[new.member] ?? []
            kept.removeAll { $0.id == new.id }
            if let collapse = new.collapseID {
                for old in kept where old.collapseID == collapse {
                    plan.replaced.append(old)
                    plan.changes.append(.remove(id: old.id))
                }
                kept.removeAll { $0.collapseID == collapse }
            }
            let excess = kept.count + 1 - perMemberLimit
            if excess > 0 {
                for old in kept.prefix(excess) {
                    plan.overflowed.append(old)
                    plan.changes.append(.remove(id: old.id))
                }
                kept.removeFirst(excess)
            }
            plan.changes.append(.put(new))
            kept.append(new)
            kept.sort(by: Self.order)
            planned[new.member] = kept
        }
        return plan
    }

    /// Announcements whose expiry is at or before `now`.
    public func expired(now: Date) -> [StoredAnnouncement] {
        byMember.values.flatMap { $0.filter { $0.expiresAt <= now } }.sorted(by: Self.order)
    }

    /// The deliverable announcements of a member (not expired), oldest first, and the expired ones to remove.
    public func deliverable(
        to member: MemberID, now: Date
    ) -> (live: [StoredAnnouncement], expired: [StoredAnnouncement]) {
        let all = byMember[member] ?? []
        return (all.filter { $0.expiresAt > now }, all.filter { $0.expiresAt <= now })
    }

    /// The earliest expiry of anything stored.
    public var nextExpiry: Date? { byMember.values.compactMap { $0.map(\.expiresAt).min() }.min() }

    /// Applies changes that have been written to storage.
    public mutating func apply(_ changes: [AnnouncementChange]) {
        for change in changes {
            switch change {
            case .put(let announcement):
                var list = byMember[announcement.member] ?? []
                list.removeAll { $0.id == announcement.id }
                list.append(announcement)
                list.sort(by: Self.order)
                byMember[announcement.member] = list
            case .remove(let id):
                for (member, list) in byMember where list.contains(where: { $0.id == id }) {
                    let rest = list.filter { $0.id != id }
                    byMember[member] = rest.isEmpty ? nil : rest
                }
            }
        }
    }

    /// Forgets everything stored for a member whose membership ended (storage removes it with the membership).
    public mutating func removeMember(_ member: MemberID) -> [StoredAnnouncement] {
        byMember.removeValue(forKey: member) ?? []
    }
}
