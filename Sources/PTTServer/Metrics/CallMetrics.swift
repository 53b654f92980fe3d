import PTTCore
import Prometheus

/// Private calls (`ptt_calls_*`, Docs/CALLS-DESIGN.md).
public final class CallMetrics: Sendable {
    /// Calls placed that rang (or were held for a busy callee).
    public let placed: Counter
    /// Calls answered.
    public let connected: Counter
    private let endings: [CallEnd: Counter]

    init(_ registry: PrometheusCollectorRegistry) {
        placed = registry.makeCounter(name: "ptt_calls_placed_total", help: "Private calls placed that rang")
        connected = registry.makeCounter(name: "ptt_calls_connected_total", help: "Private calls answered")
        endings = registry.labelledCounters("ptt_calls_ended_total", "Private calls ended", key: "reason", CallEnd.self)
    }

    public func ended(_ reason: CallEnd) { endings[reason]?.increment() }
}
