/// The system's cryptographically secure generator (member ids, SSRCs, media keys, burst ids), as a value
/// with storage of its own.
///
/// `SystemRandomNumberGenerator` has no stored properties, and Swift gives every zero-size value the same
/// address: ThreadSanitizer's exclusivity checks then see the `inout` uses of many control planes (one per
/// server, each on its own thread, several servers in one test process) as one variable touched from
/// several threads. The count gives the value a size, so each use has its own address.
struct SecureRandom: RandomNumberGenerator {
    private var system = SystemRandomNumberGenerator()
    /// Numbers drawn so far.
    private(set) var drawn: UInt64 = 0

    mutating func next() -> UInt64 {
        drawn &+= 1
        return system.next()
    }
}
