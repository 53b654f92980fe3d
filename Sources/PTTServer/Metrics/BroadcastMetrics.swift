import PTTProtocol
import Prometheus

/// Broadcasts (`ptt_broadcasts_*`, Docs/PROTOCOL.md 5.42).
public final class BroadcastMetrics: Sendable {
    /// Broadcasts that began (the sender took its floor).
    public let started: Counter
    /// Broadcasts running now.
    public let running: Gauge
    private let endings: [BroadcastEnd: Counter]

    init(_ registry: PrometheusCollectorRegistry) {
        started = registry.makeCounter(name: "ptt_broadcasts_started_total", help: "Broadcasts that began")
        running = registry.makeGauge(name: "ptt_broadcasts", help: "Broadcasts running now")
        endings = registry.labelledCounters(
            "ptt_broadcasts_ended_total", "Broadcasts ended", key: "reason", BroadcastEnd.self)
    }

    func began() {
        started.increment()
        running.increment()
    }

    func ended(_ reason: BroadcastEndReason) {
        running.decrement()
        endings[BroadcastEnd(reason)]?.increment()
    }
}

/// How a broadcast ended: `reason` in `ptt_broadcasts_ended_total` (``BroadcastEndReason``'s known values).
public enum BroadcastEnd: String, Sendable, CaseIterable {
    case released
    case `operator`
    case preempted
    case left

    init(_ reason: BroadcastEndReason) {
        switch reason {
        case .released, .unknown: self = .released
        case .endedByOperator: self = .operator
        case .preempted: self = .preempted
        case .left: self = .left
        }
    }
}
