import Foundation
import Prometheus

/// The file system of the data directory (database and recordings), read at every scrape of `/metrics`, so an
/// alert can fire before pttd cannot write: `ptt_data_filesystem_free_bytes` (what pttd's user may still write)
/// and `ptt_data_filesystem_size_bytes`.
public final class DataDiskMetrics: Sendable {
    let free: Gauge
    let size: Gauge

    init(_ registry: PrometheusCollectorRegistry) {
        free = registry.makeGauge(
            name: "ptt_data_filesystem_free_bytes",
            help: "Bytes pttd may still write on the data directory's file system (read at each scrape)")
        size = registry.makeGauge(
            name: "ptt_data_filesystem_size_bytes", help: "Size of the data directory's file system, bytes")
    }

    /// Reads the file system holding `path` (statvfs); leaves the gauges as they were if it cannot.
    func update(path: String) {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return }
        let block = Double(info.f_frsize)
        free.set(Double(info.f_bavail) * block)
        size.set(Double(info.f_blocks) * block)
    }
}
