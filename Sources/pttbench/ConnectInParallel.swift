#if os(Linux)
/// Makes `count` members with `connect(index)` (connect, and whatever else makes one ready), `parallelism` at a
/// time: each next one starts as soon as one is done. `arrived(member)` sees each as it is done (so the caller
/// can close them whatever happens later); when one is done after `deadline`, the run throws `overrun`. Returns the
/// members in index order; the first failure is thrown, and the connects still under way are cancelled.
func connectInParallel<Member: Sendable>(
    _ count: Int, parallelism: Int, deadline: ContinuousClock.Instant, overrun: String,
    _ connect: @escaping @Sendable (_ index: Int) async throws -> Member,
    arrived: (_ member: Member) -> Void = { _ in }
) async throws -> [Member] {
    var made = [Member?](repeating: nil, count: count)
    try await withThrowingTaskGroup(of: (Int, Member).self) { tasks in
        var next = 0
        func add() {
            let index = next
            next += 1
            tasks.addTask { (index, try await connect(index)) }
        }
        while next < min(parallelism, count) { add() }
        while let (index, member) = try await tasks.next() {
            made[index] = member
            arrived(member)
            if next < count { add() }
            if ContinuousClock.now > deadline { throw BenchError(overrun) }
        }
    }
    return made.map { $0! }
}
#endif
