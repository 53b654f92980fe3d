/// One push outcome to count, as the notifier's ledger, metrics and log take it.
public struct PushRecord: Sendable, Equatable {
    public var kind: PushKind
    public var member: MemberID
    public var transport: WakeRoute
    public var outcome: PushOutcome
    /// Why it expired, was refused or failed; nil for `sent` and `acknowledged`.
    public var reason: String?
    public var burst: BurstID?

    public init(
        kind: PushKind, member: MemberID, transport: WakeRoute, outcome: PushOutcome, reason: String? = nil,
        burst: BurstID? = nil
    ) {
        self.kind = kind
        self.member = member
        self.transport = transport
        self.outcome = outcome
        self.reason = reason
        self.burst = burst
    }

    /// The outcome of a push that was never handed over.
    public init<P>(expired item: OutboxItem<P>, transport: WakeRoute, reason: PushExpiry) {
        self.init(
            kind: item.kind, member: item.member, transport: transport, outcome: .expired, reason: reason.rawValue,
            burst: item.burst)
    }

    /// The outcome of a push that was handed over.
    public init<P>(_ item: OutboxItem<P>, transport: WakeRoute, outcome: PushOutcome, reason: String? = nil) {
        self.init(
            kind: item.kind, member: item.member, transport: transport, outcome: outcome, reason: reason,
            burst: item.burst)
    }
}
