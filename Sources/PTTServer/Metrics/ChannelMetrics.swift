import PTTCore
import Prometheus

/// Channels, memberships and floors.
public final class ChannelMetrics: Sendable {
    public let channels: Gauge
    public let members: Gauge
    public let joins: Counter
    /// Storage writes that stored one or more joins (``DirectoryWrites``).
    public let joinBatches: Counter
    /// Directory changes (joins, leaves, push tokens, operators' changes) waiting for storage or being written.
    public let directoryWritesWaiting: Gauge
    public let leaves: Counter
    public let kicks: Counter
    public let floorGrants: Counter
    public let floorQueued: Counter
    /// `ptt_floor_grant_seconds`: the server's share of a grant given at once (``FloorAskTiming``).
    let floorGrantTimes: FloorGrantHistograms
    private let floorDenies: [FloorDenyCause: Counter]
    private let floorRevokes: [FloorRevokeCause: Counter]
    /// Channels in an emergency or imminent peril now.
    public let inEmergency: Gauge
    private let emergenciesDeclared: [EmergencyLevel: Counter]
    private let emergenciesCleared: [EmergencyEnd: Counter]

    init(_ registry: PrometheusCollectorRegistry) {
        channels = registry.makeGauge(name: "ptt_channels", help: "Channels")
        members = registry.makeGauge(name: "ptt_members", help: "Channel memberships")
        joins = registry.makeCounter(name: "ptt_joins_total", help: "Join requests that succeeded")
        joinBatches = registry.makeCounter(
            name: "ptt_join_batches_total", help: "Storage writes that stored one or more joins together")
        directoryWritesWaiting = registry.makeGauge(
            name: "ptt_directory_operations_waiting",
            help: "Directory changes waiting for storage or being written (floors never wait for them)")
        leaves = registry.makeCounter(name: "ptt_leaves_total", help: "Memberships ended by the member")
        kicks = registry.makeCounter(name: "ptt_kicks_total", help: "Memberships ended by an operator")
        floorGrants = registry.makeCounter(name: "ptt_floor_grants_total", help: "Floor grants")
        floorQueued = registry.makeCounter(name: "ptt_floor_queued_total", help: "Floor requests queued")
        floorGrantTimes = FloorGrantHistograms(registry)
        floorDenies = registry.labelledCounters(
            "ptt_floor_denies_total", "Floor requests denied", key: "cause", FloorDenyCause.self)
        floorRevokes = registry.labelledCounters(
            "ptt_floor_revokes_total", "Floors revoked", key: "cause", FloorRevokeCause.self)
        inEmergency = registry.makeGauge(
            name: "ptt_channels_in_emergency", help: "Channels in an emergency or imminent peril now")
        emergenciesDeclared = registry.labelledCounters(
            "ptt_emergencies_declared_total", "Emergencies declared (or raised or lowered by their declarer)",
            key: "level", EmergencyLevel.self)
        emergenciesCleared = registry.labelledCounters(
            "ptt_emergencies_cleared_total", "Emergencies ended", key: "by", EmergencyEnd.self)
    }

    public func floorDenied(cause: FloorDenyCause) { floorDenies[cause]?.increment() }
    public func floorRevoked(cause: FloorRevokeCause) { floorRevokes[cause]?.increment() }
    public func emergencyDeclared(_ level: EmergencyLevel) { emergenciesDeclared[level]?.increment() }
    public func emergencyCleared(by end: EmergencyEnd) { emergenciesCleared[end]?.increment() }
}

/// How an emergency ended: `by` in `ptt_emergencies_cleared_total`.
public enum EmergencyEnd: String, Sendable, CaseIterable {
    /// Its declarer cleared it (`emergency-clear`).
    case declarer
    /// An operator cleared it (`DELETE /api/channels/NAME/emergency`).
    case `operator`
    /// Its channel was deleted.
    case channelDeleted = "channel-deleted"
}
