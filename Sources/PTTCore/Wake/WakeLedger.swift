/// The notifier's accounts: pushes counted by kind, transport, outcome and reason, and the last wake or
/// leave of each member. Pure: times are passed in.
public struct WakeLedger<Time: Sendable>: Sendable {
    /// One counted combination.
    public struct Key: Hashable, Sendable, Comparable {
        public var kind: PushKind
        public var transport: WakeRoute
        public var outcome: PushOutcome
        /// Empty for `sent` and `acknowledged`.
        public var reason: String
        public init(kind: PushKind, transport: WakeRoute, outcome: PushOutcome, reason: String) {
            self.kind = kind
            self.transport = transport
            self.outcome = outcome
            self.reason = reason
        }
        public static func < (a: Key, b: Key) -> Bool {
            (a.kind.rawValue, a.transport.rawValue, a.outcome.rawValue, a.reason) < (
                b.kind.rawValue, b.transport.rawValue, b.outcome.rawValue, b.reason
            )
        }
    }

    /// What happened to a member's last wake or leave.
    public struct Entry: Sendable {
        public var at: Time
        public var kind: PushKind
        public var transport: WakeRoute
        public var outcome: PushOutcome
        public var reason: String?
        public var burst: BurstID?
    }

    public private(set) var counts: [Key: Int] = [:]
    public private(set) var last: [MemberID: Entry] = [:]

    public init() {}

    /// Counts one outcome; wakes and leaves also become the member's last.
    public mutating func record(
        _ kind: PushKind, member: MemberID, transport: WakeRoute, outcome: PushOutcome,
        reason: String? = nil, burst: BurstID? = nil, at time: Time
    ) {
        counts[Key(kind: kind, transport: transport, outcome: outcome, reason: reason ?? ""), default: 0] += 1
        if kind != .announce {
            last[member] = Entry(
                at: time, kind: kind, transport: transport, outcome: outcome, reason: reason, burst: burst)
        }
    }

    /// The total for every combination of one kind and outcome.
    public func total(_ kind: PushKind, _ outcome: PushOutcome) -> Int {
        counts.filter { $0.key.kind == kind && $0.key.outcome == outcome }.values.reduce(0, +)
    }

    /// Forgets a member (its membership ended).
    public mutating func forget(_ member: MemberID) { last[member] = nil }
}
