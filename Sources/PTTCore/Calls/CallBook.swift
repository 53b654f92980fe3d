/// The private calls of a server: which ring, which are connected, and when each must end.
///
/// A pure state machine like ``FloorControl``: it never reads a clock and performs no I/O. Every event takes
/// `now` and returns the ``CallAction``s the server must carry out, in order; the server arms a timer for
/// ``nextDeadline`` and calls ``timersExpired(now:)`` when it fires. A call's id is the id its channel gets when
/// it connects.
public struct CallBook: Sendable {
    /// A call placed and not answered yet.
    public struct Ringing: Sendable, Equatable {
        public var id: ChannelID
        /// The caller's membership the call was placed from.
        public var caller: MemberID
        public var callerUser: String
        public var callee: String
        public var placedAt: PTTInstant
        /// Held until the callee's burst ends (``CallConfiguration/WhileBusy/queue``): not rung yet.
        public var held: Bool
    }

    /// A call answered: its two sides' users, and when it last carried a burst.
    public struct Connected: Sendable, Equatable {
        public var id: ChannelID
        public var callerUser: String
        public var callee: String
        public var lastBurstAt: PTTInstant
        /// A burst is going on: silence is not counted.
        public var talking: Bool
    }

    public var configuration: CallConfiguration
    public internal(set) var ringing: [ChannelID: Ringing] = [:]
    public internal(set) var connected: [ChannelID: Connected] = [:]

    public init(configuration: CallConfiguration = CallConfiguration()) {
        self.configuration = configuration
    }

    /// Whether `user` is a side of a call that rings or is connected.
    public func isInCall(_ user: String) -> Bool {
        ringing.values.contains { $0.callerUser == user || $0.callee == user }
            || connected.values.contains { $0.callerUser == user || $0.callee == user }
    }

    /// The earliest instant at which a call rings out or falls silent.
    public var nextDeadline: PTTInstant? {
        let rings = ringing.values.map { $0.placedAt + configuration.ringTimeout }
        let silences = connected.values.filter { !$0.talking }.map { $0.lastBurstAt + configuration.idleTimeout }
        return (rings + silences).min()
    }
}
