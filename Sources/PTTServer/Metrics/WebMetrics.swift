import Prometheus

/// Why the browser bridge dropped an audio packet, as counted in `ptt_web_media_dropped_total`.
public enum WebMediaDrop: String, Sendable, CaseIterable {
    /// From the page: not an RTP packet, over the size limit, or an SSRC that is none of the session's memberships.
    case malformed
    case unknownSSRC = "unknown-ssrc"
    /// From the relay: not authenticated with the membership's key (or not RTP).
    case unauthenticated
    /// To the page: more than the bound of audio bytes waits for the browser (it does not read fast enough).
    case slowBrowser = "slow-browser"
}

/// Which way a bridged audio packet went, as counted in `ptt_web_media_packets_total`.
public enum WebMediaDirection: String, Sendable, CaseIterable {
    case toRelay = "to-relay"
    case toBrowser = "to-browser"
}

/// What became of a sign-in link, as counted in `ptt_web_sign_ins_total`.
public enum SignInOutcome: String, Sendable, CaseIterable {
    case signedIn = "signed-in"
    /// No such link, or one used already (the two are not told apart: a used link is deleted).
    case unknown
    case expired
}

/// The web listener: pages, browser members and their audio (`ptt_web_*`).
public final class WebMetrics: Sendable {
    public let connectionsOpen: Gauge
    public let connectionsRefused: Counter
    public let requests: Counter
    /// Connections upgraded to WebSocket (browser members' control sessions) open now.
    public let sessionsOpen: Gauge
    private let media: [WebMediaDirection: Counter]
    private let drops: [WebMediaDrop: Counter]
    private let signIns: [SignInOutcome: Counter]
    private let timeouts: [AdminDeadlinePhase: Counter]

    init(_ registry: PrometheusCollectorRegistry) {
        connectionsOpen = registry.makeGauge(name: "ptt_web_connections", help: "Web connections open now")
        connectionsRefused = registry.makeCounter(
            name: "ptt_web_connections_refused_total", help: "Web connections refused at accept (limits)")
        requests = registry.makeCounter(name: "ptt_web_requests_total", help: "HTTP requests to the web listener")
        sessionsOpen = registry.makeGauge(
            name: "ptt_web_sessions", help: "Browser members connected over WebSocket now")
        media = registry.labelledCounters(
            "ptt_web_media_packets_total", "Audio packets bridged between browsers and the relay",
            key: "direction", WebMediaDirection.self)
        drops = registry.labelledCounters(
            "ptt_web_media_dropped_total", "Audio packets the browser bridge dropped", key: "reason",
            WebMediaDrop.self)
        signIns = registry.labelledCounters(
            "ptt_web_sign_ins_total", "Sign-in links presented, by outcome", key: "outcome", SignInOutcome.self)
        timeouts = registry.labelledCounters(
            "ptt_web_connections_timed_out_total", "Web connections closed at a deadline before becoming WebSockets",
            key: "phase", AdminDeadlinePhase.self)
    }

    public func bridged(_ direction: WebMediaDirection) { media[direction]?.increment() }
    public func dropped(_ reason: WebMediaDrop) { drops[reason]?.increment() }
    public func signIn(_ outcome: SignInOutcome) { signIns[outcome]?.increment() }
    public func timedOut(_ phase: AdminDeadlinePhase) { timeouts[phase]?.increment() }
}
