/// The last push the notifier tried for a member, in `GET /api/channels/NAME`.
public struct LastWakeStatus: Codable, Sendable, Equatable {
    /// Wall-clock time of the outcome, ISO 8601.
    public var at: String
    /// `wake` or `leave`.
    public var kind: WakeKind
    /// `local-push`, `apns` or `none`.
    public var transport: WakeTransport
    /// `sent`, `acknowledged`, `expired`, `rejected` or `failed`.
    public var outcome: WakeOutcome
    /// Why, for outcomes other than `sent` and `acknowledged` (an APNs reason such as `Unregistered`,
    /// or `no-route`, `deadline`, `burst-ended`, `backoff`, `overflow`, ...).
    public var reason: String?
    /// The talk burst a wake belonged to.
    public var burst: String?
    public init(
        at: String, kind: WakeKind, transport: WakeTransport, outcome: WakeOutcome, reason: String? = nil,
        burst: String? = nil
    ) {
        self.at = at
        self.kind = kind
        self.transport = transport
        self.outcome = outcome
        self.reason = reason
        self.burst = burst
    }
}

/// One row of `GET /api/wakes`: how many pushes of a kind ended one way on one transport.
public struct WakeCount: Codable, Sendable, Equatable {
    /// `wake`, `leave` or `announce`.
    public var kind: WakeKind
    /// `local-push`, `apns` or `none`.
    public var transport: WakeTransport
    /// `sent`, `acknowledged`, `expired`, `rejected` or `failed`.
    public var outcome: WakeOutcome
    /// The reason, for `expired`, `rejected` and `failed`; empty otherwise.
    public var reason: String
    public var count: Int
    public init(kind: WakeKind, transport: WakeTransport, outcome: WakeOutcome, reason: String, count: Int) {
        self.kind = kind
        self.transport = transport
        self.outcome = outcome
        self.reason = reason
        self.count = count
    }
}

/// `GET /api/wakes`: notifier totals since the server started, and the state of its transports.
public struct WakeTotals: Codable, Sendable, Equatable {
    /// When the counting started (server start), ISO 8601.
    public var since: String
    public var counts: [WakeCount]
    /// Whether APNs credentials are configured.
    public var apnsConfigured: Bool
    /// The APNs server used, when configured.
    public var apnsEndpoint: String?
    /// Until when APNs is being backed off after `429` or `5xx` answers, ISO 8601; nil when not backing off.
    public var apnsBackoffUntil: String?
    /// Age in seconds of the shared provider token (JWT); nil before the first APNs request.
    public var apnsTokenAgeSeconds: Int?
    /// Announcements stored for delivery, over all members.
    public var storedAnnouncements: Int
    /// Wakes waiting to be handed to a transport right now.
    public var pending: Int
    public init(
        since: String, counts: [WakeCount], apnsConfigured: Bool, apnsEndpoint: String?, apnsBackoffUntil: String?,
        apnsTokenAgeSeconds: Int?, storedAnnouncements: Int, pending: Int
    ) {
        self.since = since
        self.counts = counts
        self.apnsConfigured = apnsConfigured
        self.apnsEndpoint = apnsEndpoint
        self.apnsBackoffUntil = apnsBackoffUntil
        self.apnsTokenAgeSeconds = apnsTokenAgeSeconds
        self.storedAnnouncements = storedAnnouncements
        self.pending = pending
    }
}

/// `POST /api/channels/NAME/announce` body.
public struct AnnounceRequest: Codable, Sendable, Equatable {
    /// The message, 1 to 1024 bytes of UTF-8.
    public var text: String
    /// A newer announcement with the same collapse id replaces an older one still stored (at most 64 bytes).
    public var collapseId: String?
    /// How long the announcement stays deliverable, in seconds: 1 to 2 592 000 (30 days); default 3600.
    public var ttlSeconds: Int?
    public init(text: String, collapseId: String? = nil, ttlSeconds: Int? = nil) {
        self.text = text
        self.collapseId = collapseId
        self.ttlSeconds = ttlSeconds
    }
}

/// `POST /api/channels/NAME/announce` answer.
public struct AnnounceResponse: Codable, Sendable, Equatable {
    public var channel: String
    /// Members the announcement was stored for.
    public var members: Int
    /// Of those, members with a live connection it was handed to right away (it stays stored until acknowledged).
    public var handedNow: Int
    /// Older announcements with the same collapse id that this one replaced.
    public var replaced: Int
    /// When it expires, ISO 8601.
    public var expiresAt: String
    public init(channel: String, members: Int, handedNow: Int, replaced: Int, expiresAt: String) {
        self.channel = channel
        self.members = members
        self.handedNow = handedNow
        self.replaced = replaced
        self.expiresAt = expiresAt
    }
}
