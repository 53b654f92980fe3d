import PTTCore
import PTTRelay
import Prometheus

/// The server's counters and gauges, grouped by the part of the server that counts them; every handle is created
/// once and kept (incrementing a kept handle is cheap), and every labelled family is made from its label enum's
/// `allCases`.
///
/// Each server owns its own registry, served at `/metrics` on the admin port, so several servers in one process
/// (tests) do not mix their numbers.
public final class ServerMetrics: Sendable {
    public let registry: PrometheusCollectorRegistry
    /// Control connections and sessions (`ptt_control_*`, `ptt_sessions_*`, `ptt_auth_failures_total`, ...).
    public let control: ControlMetrics
    /// Channels, memberships and floors (`ptt_channels`, `ptt_joins_total`, `ptt_floor_*`, ...).
    public let channels: ChannelMetrics
    /// Pushes by kind, transport, outcome and reason (`ptt_pushes_total`).
    public let pushes: PushMetrics
    /// The admin API (`ptt_admin_*`).
    public let admin: AdminMetrics
    /// The audio relay's counters (`ptt_media_*`, `ptt_catchup_*`, `ptt_replay_*`).
    public let relay: RelayMetrics
    /// The recorder's (`ptt_recordings_*`).
    let recordings: RecordingMetrics
    /// The web listener and the browser bridge (`ptt_web_*`).
    public let web: WebMetrics
    /// The data directory's file system (`ptt_data_filesystem_*`).
    public let disk: DataDiskMetrics
    /// Reloads and the TLS certificate (`ptt_config_reloads_total`, `ptt_tls_certificate_expiry_timestamp_seconds`).
    public let operations: OperationsMetrics
    /// A cluster node's database connection, owned channels and directory reloads (`ptt_cluster_*`).
    public let cluster: ClusterMetrics
    /// Private calls placed, answered and ended (`ptt_calls_*`).
    public let calls: CallMetrics
    /// Broadcasts started, running and ended (`ptt_broadcasts_*`).
    public let broadcasts: BroadcastMetrics
    /// Scan lists and their switches (`ptt_scan_*`).
    public let scans: ScanMetrics

    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
        control = ControlMetrics(registry)
        channels = ChannelMetrics(registry)
        pushes = PushMetrics(registry)
        admin = AdminMetrics(registry)
        recordings = RecordingMetrics(registry)
        web = WebMetrics(registry)
        disk = DataDiskMetrics(registry)
        operations = OperationsMetrics(registry)
        cluster = ClusterMetrics(registry)
        calls = CallMetrics(registry)
        broadcasts = BroadcastMetrics(registry)
        scans = ScanMetrics(registry)
        let mediaDrops = registry.labelledCounters(
            "ptt_media_packets_dropped_total", "Datagrams dropped by the relay",
            key: "reason", RelayDropReason.self)
        relay = RelayMetrics(
            received: registry.makeCounter(
                name: "ptt_media_packets_received_total", help: "UDP datagrams received by the relay"),
            forwarded: registry.makeCounter(
                name: "ptt_media_packets_forwarded_total", help: "RTP packets sent to listeners"),
            addressChanges: registry.makeCounter(
                name: "ptt_media_address_changes_total",
                help: "Members whose media address moved (roaming, NAT rebinding)"),
            sendBufferFull: registry.makeCounter(
                name: "ptt_media_send_buffer_full_total",
                help: "Copies that found the socket's send buffer full and waited in the relay's queue"),
            catchUp: CatchUpMetrics(registry),
            links: (
                registry.makeCounter(
                    name: "ptt_media_link_packets_sent_total", help: "Copies sent to other nodes of the cluster"),
                registry.makeCounter(
                    name: "ptt_media_link_packets_received_total",
                    help: "Authenticated copies received from other nodes of the cluster")
            ),
            drop: { mediaDrops[$0]! })
    }

    /// The Prometheus text exposition of every metric.
    public func exposition() -> [UInt8] { registry.emitToBuffer() }
}

extension PrometheusCollectorRegistry {
    /// One counter per case of a label enum, all made now (so each shows at 0 from the start).
    func labelledCounters<Label: RawRepresentable & CaseIterable & Hashable>(
        _ name: String, _ help: String, key: String, _ label: Label.Type
    ) -> [Label: Counter] where Label.RawValue == String {
        Dictionary(
            uniqueKeysWithValues: Label.allCases.map {
                ($0, makeCounter(name: name, labels: [(key, $0.rawValue)], help: help))
            })
    }
}
