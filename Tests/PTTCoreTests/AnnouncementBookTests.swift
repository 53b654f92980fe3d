import Foundation
import TestSupport
import Testing

@testable import PTTCore

private typealias W = WakeFixture

@Suite("Announcement book: collapse ids, limits, expiry, restarts")
struct AnnouncementBookTests {
    /// A book holding `announcements`, stored through plan + apply one at a time.
    private func book(_ announcements: [StoredAnnouncement], limit: Int = 32) -> AnnouncementBook {
        var book = AnnouncementBook(perMemberLimit: limit)
        for announcement in announcements { book.apply(book.planAdd([announcement]).changes) }
        return book
    }

    private func ids(_ list: [StoredAnnouncement]) -> [String] { list.map(\.id) }

    @Test func addingToAnEmptyBookOnlyPutsIt() {
        var book = AnnouncementBook(perMemberLimit: 4)
        let a = W.announcement("a", collapse: "x")
        let plan = book.planAdd([a])
        #expect(plan == AnnouncementPlan(changes: [.put(a)], replaced: [], overflowed: []))
        #expect(book.count == 0, "planning changes nothing")
        book.apply(plan.changes)
        #expect(book.count == 1)
        #expect(book.stored(for: W.alice) == [a])
        #expect(book.announcement("a", for: W.alice) == a)
        #expect(book.announcement("a", for: W.bob) == nil)
        #expect(book.announcement("zz", for: W.alice) == nil)
    }

    @Test func aNewerAnnouncementWithTheSameCollapseIDReplacesTheOlder() {
        var book = book([
            W.announcement("old", collapse: "shift", created: 0), W.announcement("other", collapse: "fire", created: 1),
        ])
        let new = W.announcement("new", collapse: "shift", created: 10)
        let plan = book.planAdd([new])
        #expect(plan.replaced == [W.announcement("old", collapse: "shift", created: 0)])
        #expect(plan.overflowed.isEmpty)
        #expect(plan.changes == [.remove(id: "old"), .put(new)])
        book.apply(plan.changes)
        #expect(ids(book.stored(for: W.alice)) == ["other", "new"])
    }

    @Test func theSameCollapseIDForDifferentMembersIsIndependent() {
        var book = book([W.announcement("a-old", for: W.alice, collapse: "shift")])
        let forBob = W.announcement("b-new", for: W.bob, collapse: "shift", created: 5)
        let plan = book.planAdd([forBob])
        #expect(plan.replaced.isEmpty)
        #expect(plan.changes == [.put(forBob)])
        book.apply(plan.changes)
        #expect(ids(book.stored(for: W.alice)) == ["a-old"])
        #expect(ids(book.stored(for: W.bob)) == ["b-new"])
    }

    @Test func announcementsWithoutACollapseIDNeverReplace() {
        var book = book([W.announcement("plain1", created: 0), W.announcement("keyed", collapse: "x", created: 1)])
        let plain2 = W.announcement("plain2", created: 2)
        let plan = book.planAdd([plain2])
        #expect(plan.replaced.isEmpty)
        #expect(plan.changes == [.put(plain2)])
        book.apply(plan.changes)
        // And a keyed one does not replace unkeyed ones, nor a different key.
        let keyed2 = W.announcement("keyed2", collapse: "y", created: 3)
        let second = book.planAdd([keyed2])
        #expect(second.replaced.isEmpty)
        book.apply(second.changes)
        #expect(ids(book.stored(for: W.alice)) == ["plain1", "keyed", "plain2", "keyed2"])
    }

    @Test func aMemberOverTheLimitLosesItsOldest() {
        var book = book([W.announcement("a1", created: 1), W.announcement("a2", created: 2)], limit: 2)
        let a3 = W.announcement("a3", created: 3)
        let plan = book.planAdd([a3])
        #expect(ids(plan.overflowed) == ["a1"])
        #expect(plan.replaced.isEmpty)
        #expect(plan.changes == [.remove(id: "a1"), .put(a3)])
        book.apply(plan.changes)
        #expect(ids(book.stored(for: W.alice)) == ["a2", "a3"])
    }

    @Test func aReplacementMakesRoomSoNothingOverflows() {
        let book = book([W.announcement("a1", collapse: "x", created: 1), W.announcement("a2", created: 2)], limit: 2)
        let plan = book.planAdd([W.announcement("a3", collapse: "x", created: 3)])
        #expect(ids(plan.replaced) == ["a1"])
        #expect(plan.overflowed.isEmpty)
    }

    @Test func theLimitIsPerMember() {
        var book = book([W.announcement("a1", for: W.alice, created: 1)], limit: 1)
        let plan = book.planAdd([
            W.announcement("b1", for: W.bob, created: 2), W.announcement("c1", for: W.carol, created: 2),
        ])
        #expect(plan.overflowed.isEmpty)
        book.apply(plan.changes)
        #expect(book.count == 3)
    }

    @Test func oneAnnouncementToManyMembersIsPlannedPerMember() {
        var book = book(
            [
                W.announcement("a-old", for: W.alice, collapse: "x", created: 0),
                W.announcement("b1", for: W.bob, created: 0), W.announcement("b2", for: W.bob, created: 1),
            ], limit: 2)
        let toAlice = W.announcement("a-new", for: W.alice, collapse: "x", created: 5)
        let toBob = W.announcement("b-new", for: W.bob, collapse: "x", created: 5)
        let toCarol = W.announcement("c-new", for: W.carol, collapse: "x", created: 5)
        let plan = book.planAdd([toAlice, toBob, toCarol])
        #expect(ids(plan.replaced) == ["a-old"])
        #expect(ids(plan.overflowed) == ["b1"])
        #expect(plan.changes == [.remove(id: "a-old"), .put(toAlice), .remove(id: "b1"), .put(toBob), .put(toCarol)])
        book.apply(plan.changes)
        #expect(ids(book.stored(for: W.alice)) == ["a-new"])
        #expect(ids(book.stored(for: W.bob)) == ["b2", "b-new"])
        #expect(ids(book.stored(for: W.carol)) == ["c-new"])
    }

    @Test func severalAnnouncementsForOneMemberInOnePlanKeepTheLimit() {
        var book = AnnouncementBook(perMemberLimit: 2)
        let plan = book.planAdd((1...5).map { W.announcement("a\($0)", created: Double($0)) })
        #expect(ids(plan.overflowed) == ["a1", "a2", "a3"])
        #expect(plan.changes.count == 5 + 3)
        book.apply(plan.changes)
        #expect(ids(book.stored(for: W.alice)) == ["a4", "a5"])
    }

    @Test func severalAnnouncementsWithOneCollapseIDInOnePlanLeaveTheLast() {
        var book = book([W.announcement("a0", collapse: "x", created: 0)])
        let plan = book.planAdd([
            W.announcement("a1", collapse: "x", created: 1), W.announcement("a2", collapse: "x", created: 2),
        ])
        #expect(ids(plan.replaced) == ["a0", "a1"])
        book.apply(plan.changes)
        #expect(ids(book.stored(for: W.alice)) == ["a2"])
    }

    @Test func aBookRestoredOverItsLimitDropsEnoughOnTheNextAdd() {
        // Stored under a limit of 5, restarted with a limit of 2.
        let stored = (1...5).map { W.announcement("a\($0)", created: Double($0)) }
        var book = AnnouncementBook(perMemberLimit: 2, stored: stored)
        #expect(book.stored(for: W.alice).count == 5)
        let plan = book.planAdd([W.announcement("a6", created: 6)])
        #expect(ids(plan.overflowed) == ["a1", "a2", "a3", "a4"])
        book.apply(plan.changes)
        #expect(ids(book.stored(for: W.alice)) == ["a5", "a6"])
    }

    @Test func theLimitIsAtLeastOne() {
        var book = AnnouncementBook(perMemberLimit: 0)
        #expect(book.perMemberLimit == 1)
        book.apply(book.planAdd([W.announcement("a1", created: 1)]).changes)
        let plan = book.planAdd([W.announcement("a2", created: 2)])
        #expect(ids(plan.overflowed) == ["a1"])
    }

    @Test func deliverableSplitsLiveFromExpiredAtTheExpiryInstant() {
        let book = book([
            W.announcement("gone", created: 0, expires: 50),
            W.announcement("edge", created: 1, expires: 100),
            W.announcement("live", created: 2, expires: 101),
            W.announcement("later", created: 3, expires: 1000),
        ])
        let now = W.date(100)
        let split = book.deliverable(to: W.alice, now: now)
        #expect(ids(split.live) == ["live", "later"])
        #expect(ids(split.expired) == ["gone", "edge"], "expiresAt <= now is expired")
        #expect(book.deliverable(to: W.bob, now: now).live.isEmpty)
        #expect(book.deliverable(to: W.bob, now: now).expired.isEmpty)
        // Deliverable does not remove anything.
        #expect(book.count == 4)
    }

    @Test func expiredListsEveryMembersExpiredAnnouncementsOldestFirst() {
        let book = book([
            W.announcement("b-old", for: W.bob, created: 1, expires: 10),
            W.announcement("a-old", for: W.alice, created: 2, expires: 10),
            W.announcement("a-live", for: W.alice, created: 0, expires: 100),
            W.announcement("c-edge", for: W.carol, created: 0, expires: 20),
        ])
        #expect(ids(book.expired(now: W.date(20))) == ["c-edge", "b-old", "a-old"])
        #expect(book.expired(now: W.date(5)).isEmpty)
        #expect(ids(book.expired(now: W.date(100))) == ["a-live", "c-edge", "b-old", "a-old"])
    }

    @Test func nextExpiryIsTheEarliestOfAllMembers() {
        var book = book([
            W.announcement("a", for: W.alice, created: 0, expires: 300),
            W.announcement("b", for: W.bob, created: 1, expires: 200),
            W.announcement("a2", for: W.alice, created: 2, expires: 250),
        ])
        #expect(book.nextExpiry == W.date(200))
        book.apply([.remove(id: "b")])
        #expect(book.nextExpiry == W.date(250))
        #expect(AnnouncementBook(perMemberLimit: 3).nextExpiry == nil)
    }

    @Test func applyingAPutTwiceKeepsOneCopyAndRemovingUnknownIDsDoesNothing() {
        var book = AnnouncementBook(perMemberLimit: 5)
        let a = W.announcement("a", created: 1)
        book.apply([.put(a), .put(a)])
        #expect(book.count == 1)
        let edited = W.announcement("a", created: 1, text: "edited")
        book.apply([.put(edited)])
        #expect(book.stored(for: W.alice) == [edited])
        book.apply([.remove(id: "nope")])
        #expect(book.count == 1)
        book.apply([.remove(id: "a")])
        #expect(book.count == 0)
        #expect(book.stored(for: W.alice).isEmpty)
        #expect(book.nextExpiry == nil)
    }

    @Test func appliedPutsAreKeptInCreationOrderThenIDOrder() {
        var book = AnnouncementBook(perMemberLimit: 10)
        book.apply([
            .put(W.announcement("c", created: 5)), .put(W.announcement("b", created: 1)),
            .put(W.announcement("z", created: 3)), .put(W.announcement("a", created: 3)),
        ])
        #expect(ids(book.stored(for: W.alice)) == ["b", "a", "z", "c"])
    }

    @Test func removeMemberForgetsOnlyThatMember() {
        var book = book([
            W.announcement("a1", for: W.alice, created: 1), W.announcement("a2", for: W.alice, created: 2),
            W.announcement("b1", for: W.bob, created: 1),
        ])
        #expect(ids(book.removeMember(W.alice)) == ["a1", "a2"])
        #expect(book.stored(for: W.alice).isEmpty)
        #expect(ids(book.stored(for: W.bob)) == ["b1"])
        #expect(book.count == 1)
        #expect(book.removeMember(W.alice).isEmpty)
    }

    @Test func storedMessagesSurviveARestartAndExpireOnTime() {
        // Before the restart: announcements planned and applied as the server would, then persisted.
        let members = [W.alice, W.bob, W.carol]
        var before = AnnouncementBook(perMemberLimit: 3)
        var rng = SplitMix64(seed: 0xA11)
        var persisted: [String: StoredAnnouncement] = [:]
        for n in 0..<40 {
            let member = members.randomElement(using: &rng)!
            let collapse: String? = Bool.random(using: &rng) ? "k\(Int.random(in: 0..<3, using: &rng))" : nil
            // Creation times collide on purpose so the id breaks ties.
            let created = Double(Int.random(in: 0..<10, using: &rng))
            let announcement = W.announcement(
                String(format: "n%02d", 39 - n), for: member, collapse: collapse,
                created: created, expires: created + Double(Int.random(in: 1..<30, using: &rng)))
            let plan = before.planAdd([announcement])
            for change in plan.changes {
                switch change {
                case .put(let a): persisted[a.id] = a
                case .remove(let id): persisted[id] = nil
                }
            }
            before.apply(plan.changes)
        }
        #expect(persisted.count == before.count)

        // After the restart: the book is rebuilt from storage in whatever order storage returns it.
        var shuffled = Array(persisted.values)
        shuffled.shuffle(using: &rng)
        let after = AnnouncementBook(perMemberLimit: 3, stored: shuffled)
        #expect(after.count == before.count)
        #expect(after.nextExpiry == before.nextExpiry)
        for second in stride(from: 0.0, through: 40.0, by: 0.5) {
            let now = W.date(second)
            #expect(ids(after.expired(now: now)) == ids(before.expired(now: now)))
            for member in members {
                let a = after.deliverable(to: member, now: now)
                let b = before.deliverable(to: member, now: now)
                #expect(a.live == b.live, "member \(member) at \(second)")
                #expect(a.expired == b.expired, "member \(member) at \(second)")
                let order = a.live.map { ($0.createdAt, $0.id) }
                #expect(zip(order, order.dropFirst()).allSatisfy { $0 < $1 }, "live in (createdAt, id) order")
                #expect(a.live.allSatisfy { $0.expiresAt > now })
                #expect(a.expired.allSatisfy { $0.expiresAt <= now })
            }
        }
        // Far enough in the future, everything has expired and nothing is deliverable.
        #expect(members.allSatisfy { after.deliverable(to: $0, now: W.date(100)).live.isEmpty })
        #expect(after.expired(now: W.date(100)).count == after.count)
    }
}
