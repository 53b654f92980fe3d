#if os(Linux)
/// pttd's catch-up figures over a run, from `/metrics` before and after it (`ptt_catchup_*`): catch-ups started
/// and how they ended, the kept packets they sent, and how far behind the live packets they were when they ended
/// (`ptt_catchup_lag_seconds`, sum and count).
struct CatchUpFigures: Codable {
    var started = 0
    var packets = 0
    /// Catch-ups that ended, by outcome ("live", "ended", "cancelled").
    var finished: [String: Int] = [:]
    var lagCount = 0
    var lagSecondsSum = 0.0
    /// Packets dropped from kept bursts by a bound, and those a catch-up could not send because of it.
    var evictedPackets = 0
    var skippedPackets = 0

    /// The mean lag at the end of a catch-up, seconds; nil when none ended with a lag recorded.
    var meanLagSeconds: Double? { lagCount > 0 ? lagSecondsSum / Double(lagCount) : nil }

    /// What moved between `before` and `after` (both read with the prefix "ptt_catchup_").
    init(before: RelayCounters, after: RelayCounters) {
        func delta(_ series: String) -> Double { (after.values[series] ?? 0) - (before.values[series] ?? 0) }
        started = Int(delta("ptt_catchup_started_total"))
        packets = Int(delta("ptt_catchup_packets_total"))
        for outcome in ["live", "ended", "cancelled"] {
            finished[outcome] = Int(delta("ptt_catchup_finished_total{outcome=\"\(outcome)\"}"))
        }
        lagCount = Int(delta("ptt_catchup_lag_seconds_count"))
        lagSecondsSum = delta("ptt_catchup_lag_seconds_sum")
        evictedPackets = Int(delta("ptt_catchup_evicted_packets_total"))
        skippedPackets = Int(delta("ptt_catchup_skipped_packets_total"))
    }
}
#endif
