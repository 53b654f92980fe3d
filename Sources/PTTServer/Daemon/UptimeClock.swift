import NIOCore
import PTTCore

/// The monotonic clock the server runs on: NIO's uptime clock, so floor deadlines map directly onto
/// `NIODeadline`s for the event loop's timers.
public struct UptimeClock: PTTClock {
    public init() {}
    public func now() -> PTTInstant { PTTInstant(nanoseconds: NIODeadline.now().uptimeNanoseconds) }
}
