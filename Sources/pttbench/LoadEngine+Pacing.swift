#if os(Linux)
extension LoadEngine {
    /// Where the run is and when the talker sends: the phase, when sending began (and the CPU figures then) and
    /// ended, the tail sent after the run, and what the flood window wrote off.
    struct Pacing {
        enum Phase { case waiting, sending, draining, idle, tail, done }

        var phase = Phase.waiting
        /// CLOCK_MONOTONIC of the run's first send and of the end of sending.
        var sendStart: UInt64 = 0
        var sendEnd: UInt64 = 0
        var cpuAtStart: CPUSnapshot?
        /// The tail (command 3): when it began and its packets so far (rate mode).
        var tailStart: UInt64 = 0
        var tailSent = 0
        /// Deliveries written off when the flood window stalled (lost ones would keep it closed for good).
        var forgiven = 0
        var floodStalls = 0
        /// When the late listeners sent their first keep-alive (CLOCK_REALTIME, like arrivals; 0: not yet).
        var lateHeardRealtime: UInt64 = 0

        /// Received packets count for the run (before it they are stray; after it, the tail's).
        var counting: Bool { phase == .sending || phase == .draining }
    }
}
#endif
