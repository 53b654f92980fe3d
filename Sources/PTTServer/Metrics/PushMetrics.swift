import NIOConcurrencyHelpers
import PTTCore
import Prometheus

/// `ptt_pushes_total{kind, transport, outcome, reason}`.
public final class PushMetrics: Sendable {
    /// The most label sets of `ptt_pushes_total`.
    static let maxLabelSets = 256

    private let registry: PrometheusCollectorRegistry
    /// The counter of each label set seen.
    private let counters = NIOLockedValueBox<[PushLabels: Counter]>([:])

    init(_ registry: PrometheusCollectorRegistry) {
        self.registry = registry
        // Shown at 0 from the start, like the other labelled counters.
        for kind in PushKind.allCases {
            for transport in [WakeRoute.localPush, .apns] {
                _ = counter(PushLabels(kind: kind, transport: transport, outcome: .sent, reason: ""))
            }
        }
    }

    /// Counts one push outcome. The counter for each label set is made once and kept (making it takes the
    /// registry's lock and checks its labels). The reason is bounded by ``PushReason/bounded(_:)``, and any new
    /// one once ``maxLabelSets`` label sets exist is counted as `other`, so a misbehaving peer cannot grow
    /// `/metrics` without bound.
    public func count(kind: PushKind, transport: WakeRoute, outcome: PushOutcome, reason: String, times: Int = 1) {
        counter(PushLabels(kind: kind, transport: transport, outcome: outcome, reason: PushReason.bounded(reason)))
            .increment(by: Int64(times))
    }

    private func counter(_ labels: PushLabels) -> Counter {
        counters.withLockedValue { counters in
            if let counter = counters[labels] { return counter }
            var labels = labels
            if counters.count >= Self.maxLabelSets {
                labels.reason = PushReason.other
                if let counter = counters[labels] { return counter }
            }
            let counter = registry.makeCounter(
                name: "ptt_pushes_total",
                labels: [
                    ("kind", labels.kind.rawValue), ("transport", labels.transport.rawValue),
                    ("outcome", labels.outcome.rawValue),
                    ("reason", labels.reason),
                ],
                help: "Pushes (wakes, leaves, announcements) by transport and outcome")
            counters[labels] = counter
            return counter
        }
    }
}

/// The labels of one `ptt_pushes_total` counter.
struct PushLabels: Hashable, Sendable {
    var kind: PushKind
    var transport: WakeRoute
    var outcome: PushOutcome
    var reason: String
}
