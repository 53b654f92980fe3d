import PTTCore
import Testing

@testable import PTTServer

/// `ptt_pushes_total`: one kept counter per label set, and a bounded number of label sets whatever reasons
/// the peers send.
@Suite("Push counters")
struct PushMetricsTests {
    private func lines(_ metrics: ServerMetrics) -> [Substring] {
        String(decoding: metrics.exposition(), as: UTF8.self).split(separator: "\n").filter {
            $0.hasPrefix("ptt_pushes_total{")
        }
    }

    private func value(_ metrics: ServerMetrics, containing label: String) -> Int {
        lines(metrics).filter { $0.contains(label) }.compactMap { Int($0.split(separator: " ").last!) }.reduce(0, +)
    }

    @Test("the same label set counts on one counter; odd reasons count as other")
    func counting() {
        let metrics = ServerMetrics()
        for _ in 0..<3 {
            metrics.pushes.count(kind: .wake, transport: .apns, outcome: .rejected, reason: "BadDeviceToken")
        }
        metrics.pushes.count(kind: .wake, transport: .apns, outcome: .rejected, reason: "not\u{0}ascii")
        metrics.pushes.count(
            kind: .wake, transport: .apns, outcome: .rejected, reason: String(repeating: "x", count: 41))
        #expect(value(metrics, containing: #"reason="BadDeviceToken""#) == 3)
        #expect(value(metrics, containing: #"reason="other""#) == 2)
    }

    @Test("the members a burst could not wake are counted at once, each of them; a letter outside ASCII is odd")
    func countedAtOnce() {
        let metrics = ServerMetrics()
        metrics.pushes.count(kind: .wake, transport: .none, outcome: .expired, reason: "no-route", times: 999)
        metrics.pushes.count(kind: .wake, transport: .none, outcome: .expired, reason: "no-route")
        metrics.pushes.count(kind: .wake, transport: .apns, outcome: .rejected, reason: "Déjà vu")
        #expect(value(metrics, containing: #"reason="no-route""#) == 1000)
        #expect(value(metrics, containing: #"reason="other""#) == 1)
    }

    @Test("new reasons past the bound are counted as other, and nothing is lost")
    func bounded() {
        let metrics = ServerMetrics()
        let pushes = PushMetrics.maxLabelSets + 100
        for n in 0..<pushes {
            metrics.pushes.count(kind: .wake, transport: .apns, outcome: .failed, reason: "reason-\(n)")
        }
        #expect(lines(metrics).count <= PushMetrics.maxLabelSets + 1)
        #expect(value(metrics, containing: #"outcome="failed""#) == pushes)
        #expect(value(metrics, containing: #"reason="other""#) >= 100)
    }
}
