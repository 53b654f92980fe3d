import Testing

@testable import PTTCore

private typealias W = WakeFixture

@Suite("Push outbox: priority, deadlines, capacity")
struct PushOutboxTests {
    /// Enqueues every item into a roomy outbox, expecting nothing to be dropped.
    private func outbox(_ items: [OutboxItem<Int>], capacity: Int = 100) -> PushOutbox<Int> {
        var outbox = PushOutbox<Int>(capacity: capacity)
        for item in items { #expect(outbox.enqueue(item) == nil, "dropped on enqueue of \(item.id)") }
        return outbox
    }

    /// Hands over everything at `now`, returning the ids in order.
    private func drain(_ outbox: inout PushOutbox<Int>, now: PTTInstant = W.at(0)) -> [String] {
        var ids: [String] = []
        while let item = outbox.next(now: now).item { ids.append(item.id) }
        return ids
    }

    @Test func anEmptyOutboxHandsOutNothing() {
        var outbox = PushOutbox<Int>(capacity: 4)
        #expect(outbox.isEmpty)
        #expect(outbox.count == 0)
        #expect(outbox.nextDeadline == nil)
        let next = outbox.next(now: W.at(0))
        #expect(next.item == nil)
        #expect(next.expired.isEmpty)
        #expect(outbox.expire(now: W.at(1_000_000)).isEmpty)
    }

    @Test func priorityTenGoesBeforeAnyQueuedPriorityFive() {
        var outbox = outbox([
            W.item("a5", priority: 5), W.item("b5", priority: 5), W.item("c10", priority: 10),
            W.item("d5", priority: 5), W.item("e10", priority: 10),
        ])
        #expect(outbox.waitingIDs == ["c10", "e10", "a5", "b5", "d5"])
        #expect(drain(&outbox) == ["c10", "e10", "a5", "b5", "d5"])
        #expect(outbox.isEmpty)
    }

    @Test func aWakeArrivingWhileAnnouncementsWaitOvertakesThem() {
        var outbox = outbox([
            W.item("ann1", priority: 5, kind: .announce), W.item("ann2", priority: 5, kind: .announce),
        ])
        #expect(outbox.next(now: W.at(0)).item?.id == "ann1")
        #expect(outbox.enqueue(W.item("wake", priority: 10)) == nil)
        #expect(drain(&outbox) == ["wake", "ann2"])
    }

    @Test func firstInFirstOutWithinAPriority() {
        let ids = (0..<20).map { "w\($0)" }
        var outbox = outbox(ids.map { W.item($0) })
        #expect(drain(&outbox) == ids)
    }

    @Test func otherPrioritiesAreOrderedToo() {
        var outbox = outbox([
            W.item("p1", priority: 1), W.item("p5", priority: 5), W.item("p10", priority: 10),
            W.item("p7", priority: 7),
            W.item("p1b", priority: 1),
        ])
        #expect(drain(&outbox) == ["p10", "p7", "p5", "p1", "p1b"])
    }

    @Test func anItemPastItsDeadlineIsNeverHandedOut() {
        var outbox = outbox([
            W.item("late", deadline: 1000), W.item("ok", deadline: 5000), W.item("late5", priority: 5, deadline: 1500),
        ])
        let next = outbox.next(now: W.at(2000))
        #expect(next.item?.id == "ok")
        #expect(next.expired.map(\.id) == ["late", "late5"])
        #expect(outbox.isEmpty)
        #expect(outbox.next(now: W.at(2000)).item == nil)
    }

    @Test func anItemWhoseDeadlineIsNowIsStillDeliverable() {
        var outbox = outbox([W.item("edge", deadline: 2000)])
        #expect(outbox.expire(now: W.at(2000)).isEmpty)
        let next = outbox.next(now: W.at(2000))
        #expect(next.item?.id == "edge")
        #expect(next.expired.isEmpty)
    }

    @Test func oneNanosecondLateIsTooLate() {
        var outbox = outbox([W.item("edge", deadline: 2000)])
        let next = outbox.next(now: PTTInstant(nanoseconds: W.at(2000).nanoseconds + 1))
        #expect(next.item == nil)
        #expect(next.expired.map(\.id) == ["edge"])
    }

    @Test func whenEverythingIsLateNextReturnsOnlyExpiredItems() {
        var outbox = outbox([W.item("a", deadline: 10), W.item("b", priority: 5, deadline: 20)])
        let next = outbox.next(now: W.at(30))
        #expect(next.item == nil)
        #expect(next.expired.map(\.id) == ["a", "b"])
        #expect(outbox.isEmpty)
    }

    @Test func expireByTimeRemovesOnlyLateItemsAndKeepsTheOrder() {
        var outbox = outbox([
            W.item("a", deadline: 100), W.item("b", deadline: 900), W.item("c", priority: 5, deadline: 50),
            W.item("d", deadline: 500), W.item("e", priority: 5, deadline: 800),
        ])
        #expect(outbox.expire(now: W.at(500)).map(\.id) == ["a", "c"])
        #expect(outbox.waitingIDs == ["b", "d", "e"])
        #expect(outbox.nextDeadline == W.at(500))
    }

    @Test func nextDeadlineIsTheEarliestWaitingDeadline() {
        var outbox = outbox([
            W.item("a", deadline: 700), W.item("b", priority: 5, deadline: 300), W.item("c", deadline: 900),
        ])
        #expect(outbox.nextDeadline == W.at(300))
        #expect(outbox.next(now: W.at(0)).item?.id == "a")
        #expect(outbox.nextDeadline == W.at(300))
        _ = outbox.remove(member: W.alice)
        #expect(outbox.nextDeadline == nil)
    }

    @Test func aBurstEndingDropsOnlyItsOwnWakes() {
        let b1 = BurstID("b1")
        let b2 = BurstID("b2")
        var outbox = outbox([
            W.item("w1", burst: b1), W.item("w2", burst: b2), W.item("ann", priority: 5, kind: .announce),
            W.item("w3", member: W.bob, burst: b1), W.item("leave", kind: .leave),
        ])
        #expect(outbox.expire(burst: b1).map(\.id) == ["w1", "w3"])
        #expect(outbox.waitingIDs == ["w2", "leave", "ann"])
        #expect(outbox.expire(burst: b1).isEmpty)
        #expect(outbox.expire(burst: BurstID("unknown")).isEmpty)
        #expect(outbox.count == 3)
    }

    @Test func removeMemberTakesAllOfItsItemsAndNothingElse() {
        var outbox = outbox([
            W.item("a1", member: W.alice), W.item("b1", member: W.bob), W.item("a2", priority: 5, member: W.alice),
            W.item("c1", member: W.carol),
        ])
        #expect(outbox.remove(member: W.alice).map(\.id) == ["a1", "a2"])
        #expect(outbox.waitingIDs == ["b1", "c1"])
        #expect(outbox.remove(member: W.alice).isEmpty)
    }

    @Test func removeIDTakesThatItemOnlyAndKeepsTheOrder() {
        var outbox = outbox([W.item("a", priority: 5), W.item("b"), W.item("c", priority: 5), W.item("d")])
        #expect(outbox.remove(id: "c")?.id == "c")
        #expect(outbox.remove(id: "c") == nil)
        #expect(outbox.remove(id: "unknown") == nil)
        #expect(outbox.waitingIDs == ["b", "d", "a"])
    }

    @Test func removeAllEmptiesTheOutboxInHandOverOrder() {
        var outbox = outbox([W.item("a", priority: 5), W.item("b"), W.item("c")])
        #expect(outbox.removeAll().map(\.id) == ["b", "c", "a"])
        #expect(outbox.isEmpty)
        #expect(outbox.removeAll().isEmpty)
    }

    @Test func whenFullTheLowestPriorityOldestItemMakesRoom() {
        var outbox = outbox([W.item("w1"), W.item("a1", priority: 5), W.item("a2", priority: 5)], capacity: 3)
        #expect(outbox.enqueue(W.item("w2"))?.id == "a1")
        #expect(outbox.waitingIDs == ["w1", "w2", "a2"])
        #expect(outbox.count == 3)
        #expect(outbox.enqueue(W.item("w3"))?.id == "a2")
        #expect(outbox.waitingIDs == ["w1", "w2", "w3"])
    }

    @Test func whenFullAnItemRankingNoHigherThanEverythingWaitingIsItselfDropped() {
        var outbox = outbox([W.item("w1"), W.item("a1", priority: 5)], capacity: 2)
        // Same priority as the lowest waiting: the newcomer is the lowest-priority, youngest, it goes.
        #expect(outbox.enqueue(W.item("a2", priority: 5))?.id == "a2")
        #expect(outbox.enqueue(W.item("low", priority: 1))?.id == "low")
        #expect(outbox.waitingIDs == ["w1", "a1"])
        var full = self.outbox([W.item("w1"), W.item("w2")], capacity: 2)
        #expect(full.enqueue(W.item("w3"))?.id == "w3")
        #expect(full.waitingIDs == ["w1", "w2"])
    }

    @Test func theCapacityIsAtLeastOne() {
        var outbox = PushOutbox<Int>(capacity: 0)
        #expect(outbox.capacity == 1)
        #expect(outbox.enqueue(W.item("a", priority: 5)) == nil)
        #expect(outbox.enqueue(W.item("b", priority: 5))?.id == "b")
        #expect(outbox.enqueue(W.item("c", priority: 10))?.id == "a")
        #expect(outbox.waitingIDs == ["c"])
        #expect(PushOutbox<Int>(capacity: -5).capacity == 1)
    }

    @Test func belowCapacityNothingIsDropped() {
        var outbox = PushOutbox<Int>(capacity: 3)
        #expect(outbox.enqueue(W.item("a", priority: 5)) == nil)
        #expect(outbox.enqueue(W.item("b", priority: 5)) == nil)
        #expect(outbox.enqueue(W.item("c", priority: 1)) == nil)
        #expect(outbox.count == 3)
    }

    @Test func itemsKeepTheirFields() throws {
        let burst = BurstID("b")
        var outbox = PushOutbox<String>(capacity: 2)
        let item = OutboxItem(
            id: "x", kind: .leave, member: W.dave, priority: 10, deadline: W.at(42), burst: burst,
            payload: "payload")
        #expect(outbox.enqueue(item) == nil)
        let out = try #require(outbox.next(now: W.at(42)).item)
        #expect(out.id == "x")
        #expect(out.kind == .leave)
        #expect(out.member == W.dave)
        #expect(out.priority == 10)
        #expect(out.deadline == W.at(42))
        #expect(out.burst == burst)
        #expect(out.payload == "payload")
        #expect(
            OutboxItem(id: "y", kind: .announce, member: W.dave, priority: 5, deadline: W.at(0), payload: 1).burst
                == nil)
    }
}
