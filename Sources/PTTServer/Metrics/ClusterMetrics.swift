import Prometheus

/// A cluster node's place in its cluster (`ptt_cluster_*`); on a single server `ptt_cluster_node` is 0 and the rest
/// stay at 0.
public final class ClusterMetrics: Sendable {
    /// 1 on a cluster node (`--cluster`), 0 on a single server.
    let node: Gauge
    /// 1 while the node's own database connection (its name and channel locks, LISTEN) is up.
    let databaseConnected: Gauge
    /// Channels this node owns now.
    let channelsOwned: Gauge
    /// Reloads of the directory after another node changed it (or after a reconnect).
    let directoryReloads: Counter
    /// Times the node's own database connection was lost.
    let connectionsLost: Counter
    /// Node links up now, and links closed on an error, a refusal or a deadline.
    let linksUp: Gauge
    let linkFailures: Counter
    /// Floor requests this node forwarded that the node asked refused (it did not run the channel's floor), and
    /// ones other nodes forwarded here that this node refused.
    let forwardsRefused: Counter
    let forwardsRefusedHere: Counter
    /// Node messages of a type this version does not know (a newer node's), skipped.
    let messagesSkipped: Counter

    init(_ registry: PrometheusCollectorRegistry) {
        node = registry.makeGauge(name: "ptt_cluster_node", help: "1 when this pttd is a node of a cluster")
        databaseConnected = registry.makeGauge(
            name: "ptt_cluster_database_connected",
            help: "1 while the node's own connection to the cluster's PostgreSQL is up (its locks and LISTEN)")
        channelsOwned = registry.makeGauge(
            name: "ptt_cluster_channels_owned", help: "Channels this node owns (runs the floor of)")
        directoryReloads = registry.makeCounter(
            name: "ptt_cluster_directory_reloads_total",
            help: "Directory reloads after another node changed it, or after a reconnect")
        connectionsLost = registry.makeCounter(
            name: "ptt_cluster_database_connections_lost_total",
            help: "Times the node's own connection to the cluster's PostgreSQL was lost")
        linksUp = registry.makeGauge(name: "ptt_cluster_links_up", help: "Links to other nodes that are up")
        linkFailures = registry.makeCounter(
            name: "ptt_cluster_link_failures_total",
            help: "Node links closed on an error, a refused hello, or a deadline")
        forwardsRefused = registry.makeCounter(
            name: "ptt_cluster_forwarded_requests_refused_total",
            help:
                "Floor requests this node forwarded that the node asked refused, as it did not run the channel's floor")
        forwardsRefusedHere = registry.makeCounter(
            name: "ptt_cluster_forwarded_requests_refused_here_total",
            help:
                "Floor requests other nodes forwarded here that this node refused, as it did not run the channel's floor"
        )
        messagesSkipped = registry.makeCounter(
            name: "ptt_cluster_node_messages_skipped_total",
            help: "Node messages of a type this version does not know (a newer node's), skipped")
    }
}
