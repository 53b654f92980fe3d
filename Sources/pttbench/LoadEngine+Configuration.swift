#if os(Linux)
extension LoadEngine {
    /// What a run is told.
    struct Configuration: Sendable {
        var members: Members
        var sockets: Sockets
        var traffic: Traffic
        var cpu: CPUWatch
        var verifyEvery: Int
        var keepAliveInterval: Double = 5
        /// Seconds into the sending when the late listeners send their first keep-alive.
        var lateAfter: Double = 0
        /// Seconds into the sending of the catch-up window (nil: none) and its length: the live listeners'
        /// latency for the packets sent in it is measured apart too.
        var windowStart: Double?
        var windowSeconds: Double = 5
        /// After the run, keep the thread (idle, or sending again on command 3) until command 2.
        var lingerAfterRun = false
    }

    /// Who takes part, and whether their media is SRTP. Late listeners are silent until `lateAfter` seconds into
    /// the sending and counted apart.
    struct Members: Sendable {
        var secure: Bool
        var listeners: [MemberMedia]
        var talker: MemberMedia
        var lateListeners: [MemberMedia] = []
    }

    /// Where the sockets send, and how they receive.
    struct Sockets: Sendable {
        var relayPort: Int
        /// Each listener's relay, when they are spread over the nodes of a cluster (nil: all on `relayPort`).
        var listenerRelayPorts: [Int]? = nil
        var receiveBuffer: Int
        /// Arrival = the kernel's receive timestamp (SO_TIMESTAMPNS), not when this thread got to the packet.
        var kernelTimestamps = true
    }

    /// What the talker sends, how fast, and for how long.
    struct Traffic: Sendable {
        var payloads: [[UInt8]]
        var mode: Mode
        var seconds: Double
        var maxPackets: Int
    }

    /// How the talker sends: at a fixed rate, or as fast as a window of outstanding deliveries allows.
    enum Mode: Sendable {
        case rate(Double)
        case flood(window: Int)
    }

    /// Whose CPU time a run measures: the server's process and core, and pttbench's core (-1: none).
    struct CPUWatch: Sendable {
        var serverPID: Int32
        var serverCore: Int
        var benchCore: Int

        func snapshot() -> CPUSnapshot {
            CPUSnapshot.take(serverPID: serverPID, serverCore: serverCore, benchCore: benchCore)
        }
    }
}
#endif
