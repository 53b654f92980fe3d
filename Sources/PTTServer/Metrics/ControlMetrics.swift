import PTTCore
import PTTProtocol
import Prometheus

/// Why a control frame was refused, as counted in `ptt_control_frames_rejected_total`: the error code the
/// connection was answered with.
public enum FrameRejection: String, Sendable, CaseIterable {
    case frameTooLarge = "frame-too-large"
    case malformedFrame = "malformed-frame"
    case notAuthenticated = "not-authenticated"
    case alreadyAuthenticated = "already-authenticated"
    case badRequest = "bad-request"
    case other

    /// The counted reason for an error code sent in answer to a frame.
    public init(_ code: ErrorCode) { self = FrameRejection(rawValue: code.rawValue) ?? .other }
}

/// Why a `hello` was refused, as counted in `ptt_auth_failures_total`.
public enum HelloRefusal: String, Sendable, CaseIterable {
    case unsupportedVersion = "unsupported-version"
    case badCredentials = "bad-credentials"
    case badRequest = "bad-request"
    /// A cluster node cut off from its database sends members to other nodes.
    case unavailable
}

/// Control connections and sessions.
public final class ControlMetrics: Sendable {
    public let connectionsOpen: Gauge
    public let connectionsAccepted: Counter
    public let addressesBlocked: Counter
    /// Control sessions alive in memory (should follow `connectionsOpen` back to zero).
    public let sessionsInMemory: Gauge
    public let sessionsReplaced: Counter
    public let heartbeatsMissed: Counter
    public let sessionsTimedOut: Counter
    private let refused: [AdmissionControl.Refusal: Counter]
    private let closed: [ControlCloseReason: Counter]
    private let framesRejected: [FrameRejection: Counter]
    private let authFailures: [HelloRefusal: Counter]

    init(_ registry: PrometheusCollectorRegistry) {
        connectionsOpen = registry.makeGauge(name: "ptt_control_connections", help: "Control connections open now")
        connectionsAccepted = registry.makeCounter(
            name: "ptt_control_connections_accepted_total", help: "Control connections accepted")
        addressesBlocked = registry.makeCounter(
            name: "ptt_addresses_blocked_total", help: "Source addresses blocked after repeated failed hellos")
        sessionsInMemory = registry.makeGauge(
            name: "ptt_control_sessions_in_memory", help: "Control session objects alive (closed ones are freed)")
        sessionsReplaced = registry.makeCounter(
            name: "ptt_sessions_replaced_total",
            help: "Sessions closed because the same device and role connected again")
        heartbeatsMissed = registry.makeCounter(
            name: "ptt_heartbeats_missed_total", help: "Heartbeats not acknowledged in time")
        sessionsTimedOut = registry.makeCounter(
            name: "ptt_sessions_timed_out_total", help: "Sessions closed after missing heartbeats")
        refused = registry.labelledCounters(
            "ptt_control_connections_refused_total", "Control connections refused at accept",
            key: "reason", AdmissionControl.Refusal.self)
        closed = registry.labelledCounters(
            "ptt_control_connections_closed_total", "Control connections closed by the server for cost",
            key: "reason", ControlCloseReason.self)
        framesRejected = registry.labelledCounters(
            "ptt_control_frames_rejected_total", "Control frames rejected", key: "reason",
            FrameRejection.self)
        authFailures = registry.labelledCounters(
            "ptt_auth_failures_total", "Hellos refused", key: "reason", HelloRefusal.self)
    }

    public func connectionRefused(_ reason: AdmissionControl.Refusal) { refused[reason]?.increment() }
    func connectionClosed(_ reason: ControlCloseReason) { closed[reason]?.increment() }
    public func frameRejected(_ reason: FrameRejection) { framesRejected[reason]?.increment() }
    public func helloRefused(_ reason: HelloRefusal) { authFailures[reason]?.increment() }
}
