import Prometheus

/// The deadline an admin connection was closed at, as counted in `ptt_admin_connections_timed_out_total`.
public enum AdminDeadlinePhase: String, Sendable, CaseIterable {
    /// Between requests.
    case idle
    /// While a request was being read.
    case request
}

/// The admin API.
public final class AdminMetrics: Sendable {
    public let connectionsOpen: Gauge
    public let connectionsRefused: Counter
    public let requests: Counter
    public let unauthorized: Counter
    private let timeouts: [AdminDeadlinePhase: Counter]

    init(_ registry: PrometheusCollectorRegistry) {
        connectionsOpen = registry.makeGauge(name: "ptt_admin_connections", help: "Admin API connections open now")
        connectionsRefused = registry.makeCounter(
            name: "ptt_admin_connections_refused_total", help: "Admin API connections refused at the limit")
        requests = registry.makeCounter(name: "ptt_admin_requests_total", help: "Admin API requests")
        unauthorized = registry.makeCounter(
            name: "ptt_admin_unauthorized_total", help: "Admin API requests without the right token")
        timeouts = registry.labelledCounters(
            "ptt_admin_connections_timed_out_total", "Admin API connections closed at a deadline",
            key: "phase", AdminDeadlinePhase.self)
    }

    public func timedOut(_ phase: AdminDeadlinePhase) { timeouts[phase]?.increment() }
}
