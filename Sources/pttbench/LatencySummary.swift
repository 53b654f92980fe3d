#if os(Linux)
/// The percentiles, maximum and mean (ms) of a ``LatencyHistogram``, and the samples beyond its range: the relay's
/// added latency per packet, the floor's request → grant times.
struct LatencySummary: Sendable {
    var p50: Double?, p90: Double?, p99: Double?, p999: Double?, max: Double?, mean: Double?
    var overflow = 0

    init() {}

    init(_ histogram: LatencyHistogram) {
        p50 = histogram.percentileMilliseconds(0.50)
        p90 = histogram.percentileMilliseconds(0.90)
        p99 = histogram.percentileMilliseconds(0.99)
        p999 = histogram.percentileMilliseconds(0.999)
        max = histogram.total > 0 ? histogram.maxMilliseconds : nil
        mean = histogram.meanMilliseconds
        overflow = histogram.overflow
    }

    /// The figures by the names the reports' JSON gives them (`p50`, `p90`, `p99`, `p99.9`, `max`, `mean`); those
    /// without samples are left out.
    var milliseconds: [String: Double] {
        var figures: [String: Double] = [:]
        figures["p50"] = p50
        figures["p90"] = p90
        figures["p99"] = p99
        figures["p99.9"] = p999
        figures["max"] = max
        figures["mean"] = mean
        return figures
    }
}
#endif
