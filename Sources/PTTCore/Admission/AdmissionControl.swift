/// Decides which control connections are accepted: a cap for the whole server, a cap per source
/// address, and a block for an address whose connections keep failing to authenticate.
///
/// Pure: the runtime reports accepts and closes with the time, and acts on the decisions. Memory is
/// bounded: an address is tracked while it has connections open, failures in the current window or a
/// block, and at most `maxTrackedAddresses` are tracked (the oldest idle one is forgotten first).
public struct AdmissionControl: Sendable {
    /// Why a connection was refused; `rawValue` is the metric label.
    public enum Refusal: String, Sendable, CaseIterable {
        /// The server holds `maxConnections` already.
        case serverFull = "limit"
        /// The address holds `perAddressConnections` already.
        case addressFull = "per-address-limit"
        /// The address is blocked after too many failed hellos.
        case addressBlocked = "failed-hellos"
    }

    public enum Decision: Equatable, Sendable {
        case admit
        /// `firstInSpell` is true for the first refusal of this address since it was last admitted or
        /// blocked: log that one, count them all.
        case refuse(Refusal, firstInSpell: Bool)
    }

    /// Something an operator should read about, returned when a connection closes.
    public enum Notice: Equatable, Sendable {
        /// The address is refused until `until` after `failures` failed hellos in the window.
        case blocked(address: String, failures: Int, until: PTTInstant)
    }

    struct Entry {
        var open = 0
        var failures = 0
        var windowStart: PTTInstant
        var blockedUntil: PTTInstant?
        var refusedInSpell = false
        var lastSeen: PTTInstant
    }

    /// Replaced by a configuration reload; connections already open are not affected.
    public var limits: ConnectionLimits
    public let maxConnections: Int
    public let maxTrackedAddresses: Int
    /// Control connections open now (all addresses).
    public private(set) var open = 0
    private(set) var entries: [String: Entry] = [:]
    private var refusedServerFull = false

    public init(limits: ConnectionLimits, maxConnections: Int, maxTrackedAddresses: Int = 65_536) {
        self.limits = limits
        self.maxConnections = maxConnections
        self.maxTrackedAddresses = max(1, maxTrackedAddresses)
    }

    /// Addresses tracked now (bounded by `maxTrackedAddresses`).
    public var trackedAddresses: Int { entries.count }

    /// A connection from `address` was accepted by the kernel: admit it (and count it open) or refuse it.
    public mutating func connectionOpened(from address: String, loopback: Bool, now: PTTInstant) -> Decision {
        guard open < maxConnections else {
            defer { refusedServerFull = true }
            return .refuse(.serverFull, firstInSpell: !refusedServerFull)
        }
        refusedServerFull = false
        if loopback && limits.exemptLoopback {
            open += 1
            return .admit
        }
        var entry = entries[address] ?? Entry(windowStart: now, lastSeen: now)
        entry.lastSeen = now
        if let until = entry.blockedUntil {
            if now < until { return refuse(.addressBlocked, &entry, address) }
            entry.blockedUntil = nil
            entry.failures = 0
            entry.windowStart = now
        }
        guard entry.open < limits.perAddressConnections else { return refuse(.addressFull, &entry, address) }
        if entries[address] == nil { makeRoom(now: now) }
        entry.open += 1
        entry.refusedInSpell = false
        entries[address] = entry
        open += 1
        return .admit
    }

    private mutating func refuse(_ why: Refusal, _ entry: inout Entry, _ address: String) -> Decision {
        let first = !entry.refusedInSpell
        entry.refusedInSpell = true
        if entries[address] != nil { entries[address] = entry }
        return .refuse(why, firstInSpell: first)
    }

    /// An admitted connection closed; `authenticated` tells whether it ever completed a `hello`.
    public mutating func connectionClosed(
        from address: String, loopback: Bool, authenticated: Bool, now: PTTInstant
    ) -> Notice? {
        open = max(0, open - 1)
        if loopback && limits.exemptLoopback { return nil }
        guard var entry = entries[address] else { return nil }
        entry.open = max(0, entry.open - 1)
        entry.lastSeen = now
        var notice: Notice?
        if !authenticated {
            if now.since(entry.windowStart) >= limits.failedHelloWindow {
                entry.windowStart = now
                entry.failures = 0
            }
            entry.failures += 1
            if entry.failures >= limits.failedHellosPerAddress, entry.blockedUntil == nil, limits.addressBlock > .zero {
                let until = now + limits.addressBlock
                entry.blockedUntil = until
                entry.refusedInSpell = false
                notice = .blocked(address: address, failures: entry.failures, until: until)
            }
        }
        entries[address] = isIdle(entry, now: now) ? nil : entry
        return notice
    }

    /// Whether an entry carries nothing worth remembering.
    private func isIdle(_ entry: Entry, now: PTTInstant) -> Bool {
        guard entry.open == 0 else { return false }
        if let until = entry.blockedUntil, now < until { return false }
        return entry.failures == 0 || now.since(entry.windowStart) >= limits.failedHelloWindow
    }

    /// Before tracking one more address: forget idle ones, then the least recently seen with nothing open.
    private mutating func makeRoom(now: PTTInstant) {
        guard entries.count >= maxTrackedAddresses else { return }
        entries = entries.filter { !isIdle($0.value, now: now) }
        guard entries.count >= maxTrackedAddresses else { return }
        if let oldest = entries.filter({ $0.value.open == 0 }).min(by: { $0.value.lastSeen < $1.value.lastSeen }) {
            entries[oldest.key] = nil
        }
    }
}
