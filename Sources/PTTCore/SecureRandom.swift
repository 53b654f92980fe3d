/// The system's cryptographically secure generator (member ids, SSRCs, media keys, burst ids), as a value
/// with storage of its own.
///
/// `SystemRandomNumberGenerator` has no stored properties, and Swift gives every zero-size value the same
/// address: ThreadSanitizer's exclusivity checks then see the `inout` uses of many control planes (one per
/// server, each on its own thread, several servers in one test process) as one variable touched from
/// several threads. The count gives the value a size, so each use has its own address.
///
/// Passing a `SystemRandomNumberGenerator` as `inout` to a generic function of another module is worse: the
/// address the exclusivity check hands ThreadSanitizer can be garbage, and TSan's runtime crashed on it (SEGV in
/// `MemoryAccess`, JoinPlanTests, every run). Use this one wherever a generator is passed on.
public struct SecureRandom: RandomNumberGenerator {
    private var system = SystemRandomNumberGenerator()
    /// Numbers drawn so far.
    public private(set) var drawn: UInt64 = 0

    public init() {}

    public mutating func next() -> UInt64 {
        drawn &+= 1
        return system.next()
    }
}
