/// The members waiting for the floor, in grant order: higher rank (urgency, then priority) first, FIFO within a rank.
///
/// A plain value used by ``FloorControl``; it does not enforce the capacity itself.
struct FloorQueue: Sendable, Equatable {
    /// The waiting candidates in grant order.
    private(set) var entries: [FloorCandidate] = []

    var isEmpty: Bool { entries.isEmpty }
    var count: Int { entries.count }
    var first: FloorCandidate? { entries.first }

    /// The 1-based position of `member`, nil when it is not queued.
    func position(of member: MemberID) -> Int? {
        entries.firstIndex { $0.member == member }.map { $0 + 1 }
    }

    /// The queued candidate for `member`, nil when it is not queued.
    func candidate(for member: MemberID) -> FloorCandidate? {
        entries.first { $0.member == member }
    }

    /// How many candidates wait at `rank` (``FloorCandidate/rank``).
    func count(atRank rank: Int) -> Int {
        entries.reduce(0) { $0 + ($1.rank == rank ? 1 : 0) }
    }

    /// Every queued member with its 1-based position.
    var positions: [MemberID: Int] {
        var result: [MemberID: Int] = [:]
        for (index, candidate) in entries.enumerated() { result[candidate.member] = index + 1 }
        return result
    }

    /// Inserts behind every candidate of the same or higher rank; returns the 1-based position.
    @discardableResult
    mutating func insert(_ candidate: FloorCandidate) -> Int {
        let index = entries.firstIndex { $0.rank < candidate.rank } ?? entries.endIndex
        entries.insert(candidate, at: index)
        return index + 1
    }

    /// Removes `member`; returns its candidate, nil when it was not queued.
    @discardableResult
    mutating func remove(_ member: MemberID) -> FloorCandidate? {
        guard let index = entries.firstIndex(where: { $0.member == member }) else { return nil }
        return entries.remove(at: index)
    }

    /// Removes and returns the head.
    mutating func popFirst() -> FloorCandidate? {
        entries.isEmpty ? nil : entries.removeFirst()
    }

    /// `.queued` actions, in queue order, for every member whose position differs from `before`
    /// (members absent from `before` count as changed), except `excluded`.
    func positionUpdates(since before: [MemberID: Int], excluding excluded: MemberID? = nil) -> [FloorAction] {
        var actions: [FloorAction] = []
        for (index, candidate) in entries.enumerated()
        where candidate.member != excluded && before[candidate.member] != index + 1 {
            actions.append(.queued(candidate.member, position: index + 1))
        }
        return actions
    }
}
