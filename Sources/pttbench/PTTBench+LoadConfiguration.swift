#if os(Linux)
extension PTTBench {
    /// The load engine's configuration from the command line: `listeners`, `lateListeners` and `talker` on the
    /// relay at `relayPort`, whose process (for its CPU figures) is `serverPID` (0: none).
    func loadConfiguration(
        relayPort: Int, listeners: [MemberMedia], talker: MemberMedia, lateListeners: [MemberMedia] = [],
        payloads: [[UInt8]], serverPID: Int32, lingerAfterRun: Bool = false
    ) -> LoadEngine.Configuration {
        LoadEngine.Configuration(
            members: .init(
                secure: load.security == "srtp", listeners: listeners, talker: talker, lateListeners: lateListeners),
            sockets: .init(
                relayPort: relayPort, receiveBuffer: receiving.receiveBufferBytes(listeners: load.listeners),
                kernelTimestamps: !receiving.userTimestamps),
            traffic: .init(payloads: payloads, mode: load.mode, seconds: load.seconds, maxPackets: load.maxPackets),
            cpu: .init(
                serverPID: serverPID, serverCore: placement.measuredServerCore, benchCore: placement.measuredBenchCore),
            verifyEvery: receiving.verifyEvery, lateAfter: late.lateAfter,
            windowStart: late.windowStart, windowSeconds: LateListenerOptions.windowSeconds,
            lingerAfterRun: lingerAfterRun)
    }
}
#endif
