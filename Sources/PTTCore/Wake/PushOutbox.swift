/// One push waiting for a transport.
public struct OutboxItem<Payload: Sendable>: Sendable {
    /// Unique push id (also the `push` frame's id).
    public var id: String
    public var kind: PushKind
    public var member: MemberID
    /// 10 goes before 5.
    public var priority: Int
    /// Not handed over after this instant: dropped and counted as expired.
    public var deadline: PTTInstant
    /// The talk burst of a wake: when it ends, the wake is dropped.
    public var burst: BurstID?
    public var payload: Payload

    public init(
        id: String, kind: PushKind, member: MemberID, priority: Int, deadline: PTTInstant, burst: BurstID? = nil,
        payload: Payload
    ) {
        self.id = id
        self.kind = kind
        self.member = member
        self.priority = priority
        self.deadline = deadline
        self.burst = burst
        self.payload = payload
    }
}

/// A bounded queue of pushes for one destination (a Local Push connection, or APNs): the highest
/// priority first, first in first out within a priority, nothing handed over after its deadline.
///
/// Pure: the caller says when the destination can take a push (``next(now:)``) and what time it is.
public struct PushOutbox<Payload: Sendable>: Sendable {
    public let capacity: Int
    /// Waiting items, kept sorted: higher priority first, then arrival order.
    private var items: [OutboxItem<Payload>] = []

    public init(capacity: Int) { self.capacity = max(1, capacity) }

    public var count: Int { items.count }
    public var isEmpty: Bool { items.isEmpty }

    /// The earliest deadline of the waiting items: when ``expire(now:)`` next has work.
    public var nextDeadline: PTTInstant? { items.map(\.deadline).min() }

    /// Queues an item. When the outbox is full, the lowest-priority, oldest item is dropped to make room
    /// (the new item itself if nothing waiting ranks below it). Returns the dropped item, if any.
    public mutating func enqueue(_ item: OutboxItem<Payload>) -> OutboxItem<Payload>? {
        var dropped: OutboxItem<Payload>?
        if items.count >= capacity {
            let lowest = items.map(\.priority).min()!
            if item.priority <= lowest { return item }
            let index = items.firstIndex { $0.priority == lowest }!
            dropped = items.remove(at: index)
        }
        let position = items.firstIndex { $0.priority < item.priority } ?? items.endIndex
        items.insert(item, at: position)
        return dropped
    }

    /// Takes the next item to hand over, first removing every item whose deadline has passed.
    public mutating func next(now: PTTInstant) -> (item: OutboxItem<Payload>?, expired: [OutboxItem<Payload>]) {
        let expired = expire(now: now)
        return (items.isEmpty ? nil : items.removeFirst(), expired)
    }

    /// Removes and returns the items whose deadline is before `now`.
    public mutating func expire(now: PTTInstant) -> [OutboxItem<Payload>] {
        remove { $0.deadline < now }
    }

    /// Removes and returns the wakes of a burst that ended.
    public mutating func expire(burst: BurstID) -> [OutboxItem<Payload>] {
        remove { $0.burst == burst }
    }

    /// Removes and returns the item with this id, if it waits here.
    public mutating func remove(id: String) -> OutboxItem<Payload>? {
        remove { $0.id == id }.first
    }

    /// Removes and returns the items for a member.
    public mutating func remove(member: MemberID) -> [OutboxItem<Payload>] {
        remove { $0.member == member }
    }

    /// Removes and returns everything (the destination went away).
    public mutating func removeAll() -> [OutboxItem<Payload>] {
        defer { items.removeAll() }
        return items
    }

    /// The ids of waiting items, in the order they would be handed over.
    public var waitingIDs: [String] { items.map(\.id) }

    private mutating func remove(where predicate: (OutboxItem<Payload>) -> Bool) -> [OutboxItem<Payload>] {
        var removed: [OutboxItem<Payload>] = []
        items.removeAll { item in
            guard predicate(item) else { return false }
            removed.append(item)
            return true
        }
        return removed
    }
}
