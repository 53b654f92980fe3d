import Foundation

/// The notifier's flow control, with no I/O: which push is handed to which transport, and when.
///
/// Pushes for a connection (a device's Local Push extension, or its app) wait in a bounded ``PushOutbox`` per
/// connection and are written while fewer than ``maxWritesInFlight`` of that connection's writes are unfinished.
/// Pushes for APNs wait in one bounded outbox and are sent while fewer than `apnsConcurrency` requests are in
/// flight, and not at all while APNs is backed off (``PushBackoff``): with zero expiry there is no later, so they
/// expire at once. Nothing is handed over after its deadline, and one timer, at the earliest deadline of anything
/// waiting, drops and counts what expires.
///
/// Every event is a `mutating func` taking the time and returning ``Action``s for the runtime to carry out, in
/// order: write to a connection, send to APNs, record an outcome, arm or cancel the sweep timer.
public struct PushDispatcher<Payload: Sendable>: Sendable {
    /// A push waiting for APNs: the device token it goes to, and what it carries.
    public struct APNsJob: Sendable {
        public var token: [UInt8]
        public var payload: Payload
        public init(token: [UInt8], payload: Payload) {
            self.token = token
            self.payload = payload
        }
    }

    /// What the runtime must do.
    public enum Action: Sendable {
        /// Write this push to the connection; report the result with ``writeFinished(_:on:error:now:)``.
        case write(OutboxItem<Payload>, connection: UInt64)
        /// Send this push to APNs; report the answer with ``apnsAnswered(_:outcome:reason:health:now:wallNow:)``.
        case sendAPNs(OutboxItem<APNsJob>)
        /// Count this outcome (ledger, metrics, log).
        case record(PushRecord)
        /// (Re)arm the one sweep timer for this instant, replacing any armed one; call ``sweep(now:)`` then.
        case armSweep(at: PTTInstant)
        /// Cancel the sweep timer: nothing waits.
        case cancelSweep
    }

    /// What an APNs answer says about APNs's health.
    public enum APNsHealth: Sendable, Equatable {
        /// A notification was delivered: any back-off ends.
        case delivered
        /// Overloaded or unreachable (429, 5xx, transport failure): back off.
        case overloaded
        /// Nothing either way (a dead token, a refused payload).
        case unchanged
    }

    /// Unfinished socket writes per connection at most: more pushes wait in the outbox, in priority order.
    public static var maxWritesInFlight: Int { 4 }

    /// Room in each outbox (outboxes made after a change get the new room).
    public private(set) var outboxCapacity: Int
    /// APNs requests in flight at most.
    public private(set) var apnsConcurrency: Int
    /// Whether APNs can be used at all (credentials configured).
    public private(set) var apnsConfigured: Bool

    var outboxes: [UInt64: PushOutbox<Payload>] = [:]
    var inFlightWrites: [UInt64: Int] = [:]
    var apnsOutbox: PushOutbox<APNsJob>
    var apnsInFlight = 0
    /// When APNs is avoided.
    public internal(set) var backoff = PushBackoff()
    /// The instant the sweep timer is armed for, nil when it is not armed.
    public internal(set) var sweepAt: PTTInstant?

    /// A dispatcher with nothing waiting.
    public init(outboxCapacity: Int, apnsConcurrency: Int, apnsConfigured: Bool) {
        self.outboxCapacity = max(1, outboxCapacity)
        self.apnsConcurrency = max(1, apnsConcurrency)
        self.apnsConfigured = apnsConfigured
        apnsOutbox = PushOutbox(capacity: outboxCapacity)
    }

    /// A configuration reload: new bounds for what is sent from now on, and whether APNs is configured now.
    /// Nothing waiting or in flight is dropped; outboxes that exist keep their room until they empty.
    public mutating func reconfigure(outboxCapacity: Int, apnsConcurrency: Int, apnsConfigured: Bool) {
        self.outboxCapacity = max(1, outboxCapacity)
        self.apnsConcurrency = max(1, apnsConcurrency)
        self.apnsConfigured = apnsConfigured
    }

    /// Pushes waiting in every outbox (not those being written or sent).
    public var pending: Int { outboxes.values.reduce(apnsOutbox.count) { $0 + $1.count } }

    /// APNs requests in flight.
    public var apnsRequestsInFlight: Int { apnsInFlight }

    /// Writes in flight on a connection.
    public func writesInFlight(on connection: UInt64) -> Int { inFlightWrites[connection, default: 0] }
}
