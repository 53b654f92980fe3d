import Foundation

/// The committed thresholds (`fixtures/bench-thresholds.json`): for each metric the value measured when it was
/// last set and the margin allowed above it. A metric above `measured × (1 + margin)` fails the gate.
struct Thresholds: Codable {
    struct Entry: Codable {
        /// Allocations (or bytes, for a metric named `…bytesPer…`) per operation when the threshold was set.
        var measured: Double
        /// The fraction allowed above `measured` (0.1: 10 %).
        var margin: Double
        /// What one operation is.
        var operation: String?

        var limit: Double { measured * (1 + margin) }
    }

    /// What the file is, for a reader.
    var about: String
    /// The build the figures are for (`debug`: what `make test` builds, and the gate reuses).
    var configuration: String
    var metrics: [String: Entry]

    static func load(_ path: String) throws -> Thresholds {
        try JSONDecoder().decode(Thresholds.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
    }

    func save(_ path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var data = try encoder.encode(self)
        data.append(0x0A)
        try data.write(to: URL(fileURLWithPath: path))
    }

    /// The verdict on one measured metric, as a line to print, and whether it passes.
    func check(_ metric: GateMetric) -> (line: String, passes: Bool) {
        let measured = String(format: "%10.2f", metric.value)
        let name = metric.name.padding(toLength: 40, withPad: " ", startingAt: 0)
        guard let entry = metrics[metric.name] else {
            // A metric measured at a size of its own (`--join-channel-members`) is shown, not checked.
            if metric.name.contains("@") { return ("\(name) \(measured)   not gated (another size)", true) }
            return ("\(name) \(measured)   no threshold: add it with --update", false)
        }
        let limit = String(format: "%10.2f", entry.limit)
        let basis = String(format: "(%.2f + %g %%)", entry.measured, entry.margin * 100)
        if metric.value > entry.limit {
            return ("\(name) \(measured) > \(limit) \(basis)   FAIL: above its threshold", false)
        }
        let note = metric.value < entry.measured * (1 - entry.margin) ? "   better: --update" : ""
        return ("\(name) \(measured) ≤ \(limit) \(basis)   ok\(note)", true)
    }
}
