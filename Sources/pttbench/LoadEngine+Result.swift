#if os(Linux)
extension LoadEngine {
    /// What a run measured, filled in by the engine's thread when the run ends.
    struct Result: Sendable {
        var sending = SendTally()
        var receiving = ReceiveTally()
        var spread = ListenerSpread()
        var latency = LatencySummary()
        /// The live listeners' latency for the packets sent in the catch-up window, and how many; nil without one.
        var windowLatency: LatencySummary?
        var windowPackets = 0
        /// The late listeners, counted apart; nil without any.
        var late: LateTally?
        var start: CPUSnapshot?
        var end: CPUSnapshot?
        var failure: String?
    }
}

/// What the sending side counted.
struct SendTally: Sendable {
    var sent = 0
    var sendErrors = 0
    var keepAlivesSent = 0
    /// Times the flood window was full with no delivery for 20 ms and the outstanding deliveries were written off.
    var floodStalls = 0
    /// First send to last send.
    var sendSeconds = 0.0
    /// First send to the later of the last send and the last delivery.
    var activeSeconds = 0.0
}

/// What the listeners' sockets counted.
struct ReceiveTally: Sendable {
    var delivered = 0
    var verified = 0
    var verifyFailed = 0
    var unmatched = 0
    var wrongSSRC = 0
    var duplicates = 0
    var burstRestarts = 0
    var strayBeforeStart = 0
    var rtcpReceived = 0
    var missingTimestamps = 0
}

/// How the delivered packets spread over the listeners.
struct ListenerSpread: Sendable {
    var withNothing = 0
    var min = 0
    var max = 0
}
#endif
