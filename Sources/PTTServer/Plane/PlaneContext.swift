import APNs
import Foundation
import Logging
import NIOCore
import PTTCore

/// What every part of the control plane shares: its event loop, configuration, clocks, metrics and log.
struct PlaneContext {
    /// The plane's one thread: every part of the plane runs only there.
    let eventLoop: EventLoop
    /// Replaced by a configuration reload (``ControlPlane/reconfigure(_:apns:)``).
    var configuration: ServerConfiguration
    let metrics: ServerMetrics
    /// Monotonic time, for floor timers, push deadlines and media presence.
    let clock: any PTTClock
    /// Wall-clock time, for what must survive a restart (announcement expiry) and what operators read.
    let wallClock: any WallClock
    /// The APNs transport, when credentials are configured.
    var apns: APNsClient?
    let logger: Logger
}

extension Date {
    /// ISO 8601 with milliseconds, as the admin API shows times.
    var iso8601: String { formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)) }
}
