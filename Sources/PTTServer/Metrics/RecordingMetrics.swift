import Prometheus

/// The recorder's counters (`ptt_recordings_*`).
final class RecordingMetrics: Sendable {
    /// Recordings whose file was created, and finished.
    let started: Counter
    let completed: Counter
    /// Bytes of finished recordings.
    let bytes: Counter
    /// Recordings closed at a start after a crash.
    let recovered: Counter
    /// Recordings removed by the retention rules.
    let removed: Counter
    /// Files that could not be created, written or finished.
    let failures: Counter

    init(_ registry: PrometheusCollectorRegistry) {
        started = registry.makeCounter(
            name: "ptt_recordings_started_total", help: "Recorded bursts whose file was created")
        completed = registry.makeCounter(
            name: "ptt_recordings_completed_total", help: "Recorded bursts written to their end")
        bytes = registry.makeCounter(name: "ptt_recordings_bytes_total", help: "Bytes of recorded bursts written")
        recovered = registry.makeCounter(
            name: "ptt_recordings_recovered_total", help: "Recordings left open by a crash and closed at the next start"
        )
        removed = registry.makeCounter(
            name: "ptt_recordings_removed_total", help: "Recordings removed by age or total size")
        failures = registry.makeCounter(
            name: "ptt_recordings_failures_total",
            help: "Recording files that could not be created, written or finished")
    }
}
