import Foundation

/// A source of wall-clock time, injected so tests can move it. Used where times must survive a restart
/// (announcement expiry); intervals use the monotonic ``PTTClock``.
public protocol WallClock: Sendable {
    func now() -> Date
}

/// The system's wall clock.
public struct SystemWallClock: WallClock {
    public init() {}
    public func now() -> Date { Date() }
}
