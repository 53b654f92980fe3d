import Foundation

@testable import PTTCore

/// Fixtures shared by the wake, outbox, announcement and ledger tests.
enum WakeFixture {
    static let alice = MemberID("alice")
    static let bob = MemberID("bob")
    static let carol = MemberID("carol")
    static let dave = MemberID("dave")
    static let erin = MemberID("erin")
    static let frank = MemberID("frank")

    /// A fixed channel id numbered `n`.
    static func channel(_ n: Int) -> ChannelID {
        let digits = String(n, radix: 16)
        let text = "00000000-0000-0000-0000-" + String(repeating: "0", count: 12 - digits.count) + digits
        return ChannelID(UUID(uuidString: text)!)
    }

    /// The instant `ms` milliseconds after the origin.
    static func at(_ ms: Int) -> PTTInstant { PTTInstant(nanoseconds: UInt64(ms) * 1_000_000) }

    /// A wall-clock instant `seconds` after an arbitrary origin.
    static func date(_ seconds: Double) -> Date { Date(timeIntervalSince1970: 1_700_000_000 + seconds) }

    static func candidate(_ member: MemberID, reachable: Bool = false, route: WakeRoute = .localPush) -> WakeCandidate {
        WakeCandidate(member: member, audioReachable: reachable, route: route)
    }

    static func wake(
        _ member: MemberID, _ channel: ChannelID, _ burst: BurstID, _ route: WakeRoute,
        deadline: PTTInstant
    ) -> WakeDecision {
        .wake(WakeOrder(member: member, channel: channel, burst: burst, route: route, deadline: deadline))
    }

    static func item(
        _ id: String, priority: Int = 10, deadline: Int = 10_000, member: MemberID = alice,
        kind: PushKind = .wake, burst: BurstID? = nil, payload: Int = 0
    ) -> OutboxItem<Int> {
        OutboxItem(
            id: id, kind: kind, member: member, priority: priority, deadline: at(deadline), burst: burst,
            payload: payload)
    }

    static func announcement(
        _ id: String, for member: MemberID = alice, channel: ChannelID = channel(1),
        collapse: String? = nil, created: Double = 0, expires: Double = 3600,
        text: String = "text"
    ) -> StoredAnnouncement {
        StoredAnnouncement(
            id: id, member: member, channel: channel, collapseID: collapse, text: text,
            createdAt: date(created), expiresAt: date(expires))
    }
}

extension WakeDecision {
    /// The member the decision is about.
    var decidedMember: MemberID {
        switch self {
        case .wake(let order): order.member
        case .expired(let member, _, _): member
        }
    }

    var order: WakeOrder? {
        if case .wake(let order) = self { return order }
        return nil
    }
}
