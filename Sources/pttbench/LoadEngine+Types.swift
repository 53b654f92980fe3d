#if os(Linux)
extension LoadEngine {
    /// How the talker sends: at a fixed rate, or as fast as a window of outstanding deliveries allows.
    enum Mode: Sendable {
        case rate(Double)
        case flood(window: Int)
    }

    /// What a run is told.
    struct Configuration: Sendable {
        var relayPort: Int
        var secure: Bool
        var listeners: [MemberMedia]
        var talker: MemberMedia
        var payloads: [[UInt8]]
        var mode: Mode
        var seconds: Double
        var maxPackets: Int
        var verifyEvery: Int
        var receiveBuffer: Int
        /// Arrival = the kernel's receive timestamp (SO_TIMESTAMPNS), not when this thread got to the packet.
        var kernelTimestamps = true
        var serverPID: Int32
        var serverCore: Int
        var benchCore: Int
        var keepAliveInterval: Double = 5
        /// After the run, keep the thread (idle, or sending again on command 3) until command 2.
        var lingerAfterRun = false
    }

    /// What a run measured, filled in by the engine's thread.
    struct Result: Sendable {
        var sent = 0
        var sendErrors = 0
        var sendSeconds = 0.0
        var activeSeconds = 0.0
        var delivered = 0
        var p50: Double?, p90: Double?, p99: Double?, p999: Double?, maxLatency: Double?, meanLatency: Double?
        var latencyOverflow = 0
        var verified = 0
        var verifyFailed = 0
        var unmatched = 0
        var wrongSSRC = 0
        var duplicates = 0
        var burstRestarts = 0
        var strayBeforeStart = 0
        var rtcpReceived = 0
        var floodStalls = 0
        var missingTimestamps = 0
        var listenersWithNothing = 0
        var minPerListener = 0
        var maxPerListener = 0
        var keepAlivesSent = 0
        var start: CPUSnapshot?
        var end: CPUSnapshot?
        var failure: String?
    }
}
#endif
