/// How a member would be woken: over its device's Local Push connection, through APNs, or not at all.
public enum WakeRoute: String, Sendable, Equatable, CaseIterable {
    /// The device's Local Push extension holds a `push-provider` connection to this server.
    case localPush = "local-push"
    /// The membership has a push token and the server has APNs credentials.
    case apns
    /// Neither: a wake for this member expires at once.
    case none

    /// Local Push first (it works with no internet), then APNs, else none.
    public static func choose(localPushConnected: Bool, hasPushToken: Bool, apnsConfigured: Bool) -> WakeRoute {
        if localPushConnected { return .localPush }
        if hasPushToken && apnsConfigured { return .apns }
        return .none
    }
}

/// What a push is for; each kind is counted apart.
public enum PushKind: String, Sendable, Equatable, CaseIterable {
    /// A pushtotalk wake at the start of a talk burst (priority 10, expiration 0).
    case wake
    /// A pushtotalk message telling the app to leave a channel (priority 10, expiration 0).
    case leave
    /// An operator's announcement (priority 5, stored until it expires).
    case announce
}

/// How a push ended.
public enum PushOutcome: String, Sendable, Equatable, CaseIterable {
    /// Handed to the transport: written to the Local Push connection, or accepted by APNs (200).
    case sent
    /// The client acknowledged it (`push-ack`).
    case acknowledged
    /// Never handed to a transport in time (zero expiry), or past its expiration; never retried.
    case expired
    /// APNs refused it (the reason is APNs's).
    case rejected
    /// The transport failed (connection refused, timeout, ...).
    case failed
}

/// Why a push expired, as counted.
public enum PushExpiry: String, Sendable, Equatable {
    /// No Local Push connection, and no push token or no APNs credentials.
    case noRoute = "no-route"
    /// Not handed to a transport within the configured bound.
    case deadline
    /// Its talk burst ended before it could be handed to a transport.
    case burstEnded = "burst-ended"
    /// APNs is being backed off after `429`/`5xx` answers.
    case backoff
    /// The queue for its connection was full.
    case overflow
    /// Its connection closed before it was written.
    case disconnected
    /// An announcement past its TTL.
    case ttl
}
