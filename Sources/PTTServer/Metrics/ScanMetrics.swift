import Prometheus

/// Scan lists (`ptt_scan_*`, Docs/PROTOCOL.md 5.45).
public final class ScanMetrics: Sendable {
    /// Devices scanning now.
    public let lists: Gauge
    /// Times a scanning device's heard channel changed.
    public let switches: Counter

    init(_ registry: PrometheusCollectorRegistry) {
        lists = registry.makeGauge(name: "ptt_scan_lists", help: "Devices with a scan list")
        switches = registry.makeCounter(
            name: "ptt_scan_switches_total", help: "Times a scanning device's heard channel changed")
    }
}
