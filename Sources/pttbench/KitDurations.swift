#if os(Linux)
import Foundation

/// One named series of durations (nanoseconds), summarised by sorting: the PTTKit benchmarks take a few hundred
/// samples, so no histogram is needed.
struct KitSeries {
    let name: String
    private(set) var samples: [UInt64] = []

    init(_ name: String, _ samples: [UInt64] = []) {
        self.name = name
        self.samples = samples
    }

    mutating func record(_ nanoseconds: UInt64) { samples.append(nanoseconds) }

    /// The nearest-rank percentile (`fraction` 0...1) in milliseconds; nil without samples.
    func percentile(_ fraction: Double) -> Double? {
        guard !samples.isEmpty else { return nil }
        let sorted = samples.sorted()
        let rank = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
        return Double(sorted[min(max(rank, 0), sorted.count - 1)]) / 1e6
    }

    /// The mean in milliseconds.
    var mean: Double? {
        samples.isEmpty ? nil : Double(samples.reduce(0, +)) / Double(samples.count) / 1e6
    }
}

/// Prints series as a Markdown table: p50, p95, p99, max and mean in milliseconds.
enum KitTable {
    static func markdown(_ series: [KitSeries]) -> String {
        func ms(_ value: Double?) -> String { value.map { String(format: "%.2f", $0) } ?? "-" }
        var lines = [
            "| step | n | p50 ms | p95 ms | p99 ms | max ms | mean ms |",
            "|---|---:|---:|---:|---:|---:|---:|",
        ]
        for item in series {
            lines.append(
                "| \(item.name) | \(item.samples.count) | \(ms(item.percentile(0.5))) | \(ms(item.percentile(0.95))) "
                    + "| \(ms(item.percentile(0.99))) | \(ms(item.percentile(1))) | \(ms(item.mean)) |")
        }
        return lines.joined(separator: "\n")
    }
}
#endif
