import Synchronization

/// The numbers of a server's connections (`welcome.session`, the logs, the plane's ``SessionTable``): one count
/// from 1 for control connections and browsers' WebSockets alike (PROTOCOL 5.2), so no two connections of a
/// server ever share a number. Safe from any thread.
final class SessionNumbers: Sendable {
    private let last = Atomic<UInt64>(0)

    /// The next number: 1, 2, 3, ...
    func next() -> UInt64 { last.add(1, ordering: .relaxed).newValue }
}
