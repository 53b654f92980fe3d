#if os(Linux)
/// The server's own share of the grants in a run, read from pttd's `ptt_floor_grant_seconds` histogram at its end:
/// from the read of each ask to the write of its grant, without the network, the client's TLS or the bench's own
/// reading. Its percentiles are bucket bounds ("at most"): pttd keeps buckets, not samples.
struct FloorLatencyServerShare: Codable, Sendable {
    /// `request` in the histogram: `floor-request` or `emergency`.
    var request: String
    var count: Int
    var meanMs: Double?
    var p50AtMostMs: Double?
    var p90AtMostMs: Double?
    var p99AtMostMs: Double?

    /// Parses the histogram of `request` out of a Prometheus text exposition; nil when it is not there.
    init?(metrics text: String, request: String) {
        let label = #"request="\#(request)""#
        var buckets: [(bound: Double, count: Double)] = []
        var total: Double?
        var sum: Double?
        for line in text.split(separator: "\n") where line.hasPrefix("ptt_floor_grant_seconds") && line.contains(label)
        {
            guard let value = line.split(separator: " ").last.flatMap({ Double($0) }) else { continue }
            if line.hasPrefix("ptt_floor_grant_seconds_count") {
                total = value
            } else if line.hasPrefix("ptt_floor_grant_seconds_sum") {
                sum = value
            } else if let bound = Self.bound(of: line) {
                buckets.append((bound, value))
            }
        }
        guard let total, let sum else { return nil }
        self.request = request
        self.count = Int(total)
        buckets.sort { $0.bound < $1.bound }
        func atMost(_ quantile: Double) -> Double? {
            guard total > 0 else { return nil }
            return buckets.first { $0.count >= (quantile * total).rounded(.up) }.map { $0.bound * 1000 }
        }
        meanMs = total > 0 ? sum / total * 1000 : nil
        p50AtMostMs = atMost(0.5)
        p90AtMostMs = atMost(0.9)
        p99AtMostMs = atMost(0.99)
    }

    /// The `le` of a bucket line (`+Inf` as infinity).
    private static func bound(of line: Substring) -> Double? {
        guard let start = line.range(of: #"le=""#)?.upperBound,
            let end = line[start...].firstIndex(of: "\"")
        else { return nil }
        let text = line[start..<end]
        return text == "+Inf" ? .infinity : Double(text)
    }
}
#endif
