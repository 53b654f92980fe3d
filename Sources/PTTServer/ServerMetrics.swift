import NIOConcurrencyHelpers
import PTTCore
import PTTRelay
import Prometheus

/// The server's counters and gauges, created once and kept (incrementing a kept handle is cheap).
///
/// Each server owns its own registry, served at `/metrics` on the admin port, so several servers in one
/// process (tests) do not mix their numbers.
public final class ServerMetrics: Sendable {
    public let registry: PrometheusCollectorRegistry
    /// The `ptt_pushes_total` counter of each label set seen.
    private let pushCounters = NIOLockedValueBox<[PushLabels: Counter]>([:])

    public let connectionsOpen: Gauge
    public let connectionsAccepted: Counter
    private let connectionsRefused: [String: Counter]
    private let connectionsClosed: [String: Counter]
    public let addressesBlocked: Counter
    /// Control sessions alive in memory (should follow `connectionsOpen` back to zero).
    public let sessionsInMemory: Gauge
    public let adminConnectionsOpen: Gauge
    public let adminConnectionsRefused: Counter
    private let adminTimeouts: [String: Counter]
    public let sessionsReplaced: Counter
    public let channels: Gauge
    public let members: Gauge
    public let joins: Counter
    /// Storage writes that stored one or more joins (``JoinBatch``).
    public let joinBatches: Counter
    public let leaves: Counter
    public let kicks: Counter
    public let floorGrants: Counter
    public let floorQueued: Counter
    public let heartbeatsMissed: Counter
    public let sessionsTimedOut: Counter
    private let floorDenies: [String: Counter]
    private let floorRevokes: [String: Counter]
    private let framesRejected: [String: Counter]
    private let authFailures: [String: Counter]
    /// The audio relay's counters (`ptt_media_*`).
    public let relay: RelayMetrics
    public let adminRequests: Counter
    public let adminUnauthorized: Counter

    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
        connectionsOpen = registry.makeGauge(name: "ptt_control_connections", help: "Control connections open now")
        connectionsAccepted = registry.makeCounter(name: "ptt_control_connections_accepted_total", help: "Control connections accepted")
        connectionsRefused = Self.labelled(registry, "ptt_control_connections_refused_total", "Control connections refused at accept",
                                           key: "reason", AdmissionControl.Refusal.allCases.map(\.rawValue))
        connectionsClosed = Self.labelled(registry, "ptt_control_connections_closed_total", "Control connections closed by the server for cost",
                                          key: "reason", ControlCloseReason.allCases.map(\.rawValue))
        addressesBlocked = registry.makeCounter(name: "ptt_addresses_blocked_total", help: "Source addresses blocked after repeated failed hellos")
        sessionsInMemory = registry.makeGauge(name: "ptt_control_sessions_in_memory", help: "Control session objects alive (closed ones are freed)")
        adminConnectionsOpen = registry.makeGauge(name: "ptt_admin_connections", help: "Admin API connections open now")
        adminConnectionsRefused = registry.makeCounter(name: "ptt_admin_connections_refused_total", help: "Admin API connections refused at the limit")
        adminTimeouts = Self.labelled(registry, "ptt_admin_connections_timed_out_total", "Admin API connections closed at a deadline",
                                      key: "phase", ["idle", "request"])
        sessionsReplaced = registry.makeCounter(name: "ptt_sessions_replaced_total", help: "Sessions closed because the same device and role connected again")
        channels = registry.makeGauge(name: "ptt_channels", help: "Channels")
        members = registry.makeGauge(name: "ptt_members", help: "Channel memberships")
        joins = registry.makeCounter(name: "ptt_joins_total", help: "Join requests that succeeded")
        joinBatches = registry.makeCounter(name: "ptt_join_batches_total", help: "Storage writes that stored one or more joins together")
        leaves = registry.makeCounter(name: "ptt_leaves_total", help: "Memberships ended by the member")
        kicks = registry.makeCounter(name: "ptt_kicks_total", help: "Memberships ended by an operator")
        floorGrants = registry.makeCounter(name: "ptt_floor_grants_total", help: "Floor grants")
        floorQueued = registry.makeCounter(name: "ptt_floor_queued_total", help: "Floor requests queued")
        heartbeatsMissed = registry.makeCounter(name: "ptt_heartbeats_missed_total", help: "Heartbeats not acknowledged in time")
        sessionsTimedOut = registry.makeCounter(name: "ptt_sessions_timed_out_total", help: "Sessions closed after missing heartbeats")
        floorDenies = Self.labelled(registry, "ptt_floor_denies_total", "Floor requests denied", key: "cause",
                                    FloorDenyCause.allCases.map(\.rawValue))
        floorRevokes = Self.labelled(registry, "ptt_floor_revokes_total", "Floors revoked", key: "cause",
                                     FloorRevokeCause.allCases.map(\.rawValue))
        framesRejected = Self.labelled(registry, "ptt_control_frames_rejected_total", "Control frames rejected", key: "reason",
                                       ["frame-too-large", "malformed-frame", "not-authenticated", "already-authenticated", "bad-request", "other"])
        authFailures = Self.labelled(registry, "ptt_auth_failures_total", "Hellos refused", key: "reason",
                                     ["unsupported-version", "bad-credentials", "bad-request"])
        let mediaDrops = Self.labelled(registry, "ptt_media_packets_dropped_total", "Datagrams dropped by the relay", key: "reason",
                                       RelayDropReason.allCases.map(\.rawValue))
        relay = RelayMetrics(
            received: registry.makeCounter(name: "ptt_media_packets_received_total", help: "UDP datagrams received by the relay"),
            forwarded: registry.makeCounter(name: "ptt_media_packets_forwarded_total", help: "RTP packets sent to listeners"),
            addressChanges: registry.makeCounter(name: "ptt_media_address_changes_total",
                                                 help: "Members whose media address moved (roaming, NAT rebinding)"),
            sendBufferFull: registry.makeCounter(name: "ptt_media_send_buffer_full_total",
                                                 help: "Copies that found the socket's send buffer full and waited in the relay's queue"),
            drop: { mediaDrops[$0.rawValue]! })
        adminRequests = registry.makeCounter(name: "ptt_admin_requests_total", help: "Admin API requests")
        adminUnauthorized = registry.makeCounter(name: "ptt_admin_unauthorized_total", help: "Admin API requests without the right token")
        // Shown at 0 from the start, like the other labelled counters.
        for kind in PushKind.allCases {
            for transport in [WakeRoute.localPush, .apns] { _ = pushCounter(PushLabels(kind: kind, transport: transport, outcome: .sent, reason: "")) }
        }
    }

    private static func labelled(_ registry: PrometheusCollectorRegistry, _ name: String, _ help: String, key: String, _ values: [String]) -> [String: Counter] {
        Dictionary(uniqueKeysWithValues: values.map { ($0, registry.makeCounter(name: name, labels: [(key, $0)], help: help)) })
    }

    public func floorDenied(cause: FloorDenyCause) { floorDenies[cause.rawValue]?.increment() }
    public func floorRevoked(cause: FloorRevokeCause) { floorRevokes[cause.rawValue]?.increment() }
    public func frameRejected(reason: String) { (framesRejected[reason] ?? framesRejected["other"])?.increment() }
    public func authFailed(reason: String) { authFailures[reason]?.increment() }
    public func connectionRefused(_ reason: AdmissionControl.Refusal) { connectionsRefused[reason.rawValue]?.increment() }
    func connectionClosed(_ reason: ControlCloseReason) { connectionsClosed[reason.rawValue]?.increment() }
    public func adminTimedOut(phase: String) { adminTimeouts[phase]?.increment() }

    /// Counts one push outcome (`ptt_pushes_total{kind, transport, outcome, reason}`). Reasons come from a
    /// closed set or from APNs; anything else is counted as `other`, so the label set stays bounded.
    /// Counts one push outcome. The counter for each label set is made once and kept (making it takes the
    /// registry's lock and checks its labels). `reason` is free text from APNs or the notifier: one that is
    /// long or unusual, or any new one once ``maxPushLabelSets`` label sets exist, is counted as `other`, so a
    /// misbehaving peer cannot grow `/metrics` without bound.
    public func push(kind: PushKind, transport: WakeRoute, outcome: PushOutcome, reason: String) {
        let plain = reason.utf8.count <= 40 && reason.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == " ") }
        pushCounter(PushLabels(kind: kind, transport: transport, outcome: outcome, reason: plain ? reason : "other")).increment()
    }

    /// The most label sets of `ptt_pushes_total`.
    static let maxPushLabelSets = 256

    private func pushCounter(_ labels: PushLabels) -> Counter {
        pushCounters.withLockedValue { counters in
            if let counter = counters[labels] { return counter }
            var labels = labels
            if counters.count >= Self.maxPushLabelSets {
                labels.reason = "other"
                if let counter = counters[labels] { return counter }
            }
            let counter = registry.makeCounter(
                name: "ptt_pushes_total",
                labels: [("kind", labels.kind.rawValue), ("transport", labels.transport.rawValue), ("outcome", labels.outcome.rawValue),
                         ("reason", labels.reason)],
                help: "Pushes (wakes, leaves, announcements) by transport and outcome")
            counters[labels] = counter
            return counter
        }
    }

    /// The Prometheus text exposition of every metric.
    public func exposition() -> [UInt8] { registry.emitToBuffer() }
}

/// The labels of one `ptt_pushes_total` counter.
struct PushLabels: Hashable, Sendable {
    var kind: PushKind
    var transport: WakeRoute
    var outcome: PushOutcome
    var reason: String
}
