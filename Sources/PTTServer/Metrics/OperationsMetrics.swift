import Prometheus

/// What operators change while pttd runs: configuration reloads by outcome (`ptt_config_reloads_total`), and the
/// TLS certificate clients are given (`ptt_tls_certificate_expiry_timestamp_seconds`, for an alert weeks ahead).
public final class OperationsMetrics: Sendable {
    /// How a reload ended.
    enum ReloadOutcome: String, CaseIterable {
        /// Read, checked and applied (perhaps with settings waiting for a restart).
        case applied
        /// Refused (a bad file or certificate): the running configuration stays.
        case refused
    }

    let reloads: [ReloadOutcome: Counter]
    let certificateExpiry: Gauge

    init(_ registry: PrometheusCollectorRegistry) {
        reloads = registry.labelledCounters(
            "ptt_config_reloads_total", "Configuration reloads (SIGHUP, pttctl reload) by outcome", key: "outcome",
            ReloadOutcome.self)
        certificateExpiry = registry.makeGauge(
            name: "ptt_tls_certificate_expiry_timestamp_seconds",
            help: "When the TLS certificate given to clients expires, seconds since 1970 (0 without TLS)")
    }
}
