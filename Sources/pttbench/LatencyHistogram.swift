/// Latencies in 1 µs buckets up to 100 ms, then 1 ms buckets up to 60 s (anything longer lands in one overflow
/// bucket; the maximum is kept exactly). Every packet counts, no sampling; memory is bounded (640 KB).
struct LatencyHistogram {
    static let fineBuckets = 100_000  // 1 µs each: 0 ..< 100 ms
    static let coarseBuckets = 59_900  // 1 ms each: 100 ms ..< 60 s
    static let bucketCount = fineBuckets + coarseBuckets
    private var counts: UnsafeMutablePointer<UInt32>
    private(set) var total = 0
    private(set) var overflow = 0
    private(set) var maxNanoseconds: UInt64 = 0
    private(set) var sumNanoseconds: UInt64 = 0

    init() {
        counts = .allocate(capacity: Self.bucketCount)
        counts.initialize(repeating: 0, count: Self.bucketCount)
    }

    func deallocate() { counts.deallocate() }

    @inline(__always)
    mutating func record(_ nanoseconds: UInt64) {
        let microseconds = nanoseconds / 1_000
        if microseconds < UInt64(Self.fineBuckets) {
            counts[Int(microseconds)] &+= 1
        } else {
            let coarse = Int(microseconds / 1_000) - 100
            if coarse < Self.coarseBuckets { counts[Self.fineBuckets + coarse] &+= 1 } else { overflow += 1 }
        }
        total += 1
        sumNanoseconds &+= nanoseconds
        if nanoseconds > maxNanoseconds { maxNanoseconds = nanoseconds }
    }

    /// The latency (ms) at or below which a fraction `p` of the samples lie (nearest rank, bucket midpoint);
    /// nil when there are no samples or the rank is beyond 60 s.
    func percentileMilliseconds(_ p: Double) -> Double? {
        guard total > 0 else { return nil }
        let rank = max(1, Int((p * Double(total)).rounded(.up)))
        var seen = 0
        for bucket in 0..<Self.bucketCount {
            seen += Int(counts[bucket])
            if seen >= rank {
                let value =
                    bucket < Self.fineBuckets
                    ? (Double(bucket) + 0.5) / 1_000
                    : Double(bucket - Self.fineBuckets + 100) + 0.5
                return min(value, maxMilliseconds)
            }
        }
        return nil
    }

    var maxMilliseconds: Double { Double(maxNanoseconds) / 1_000_000 }
    var meanMilliseconds: Double? { total == 0 ? nil : Double(sumNanoseconds) / Double(total) / 1_000_000 }
}
