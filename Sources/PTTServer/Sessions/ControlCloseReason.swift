/// Why the server closed a control connection on its own, to bound what the connection costs
/// (`ptt_control_connections_closed_total{reason}`).
enum ControlCloseReason: String, CaseIterable, Sendable {
    /// More than `limits.outboundQueueBytes` were waiting for a peer that does not read.
    case slowReader = "slow-reader"
    /// No valid `hello` within `limits.helloTimeout` of TCP accept (TLS handshake or not).
    case helloTimeout = "hello-timeout"
    /// Heartbeats went unacknowledged `heartbeatMissLimit` times.
    case heartbeatTimeout = "heartbeat-timeout"
    /// A closing `error` frame could not reach the socket within `limits.closeGrace`.
    case graceExpired = "grace-expired"
}
