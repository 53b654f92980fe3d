#if os(Linux)
import Foundation
import Glibc

/// Everything a run reports; printed as a text block or JSON.
struct BenchReport: Codable {
    struct Machine: Codable {
        var cpuModel: String
        var cores: Int
        var kernel: String
        var serverCPU: Int?
        var benchCPU: Int?

        static func current(serverCPU: Int?, benchCPU: Int?) -> Machine {
            let cpuinfo = ProcStats.read("/proc/cpuinfo") ?? ""
            let model =
                cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }
                .map {
                    $0.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "?"
                } ?? "?"
            var name = utsname()
            uname(&name)
            let release = withUnsafeBytes(of: name.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            return Machine(
                cpuModel: model, cores: Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))), kernel: release,
                serverCPU: serverCPU, benchCPU: benchCPU)
        }
    }

    var listeners: Int
    /// Listeners that also scan (`--scanners`); nil when none do.
    var scanningListeners: Int?
    var security: String
    var mode: String
    var payloadBytes: Int
    var offeredInputPacketsPerSecond: Double?
    var offeredDeliveriesPerSecond: Double?
    var floodWindow: Int?
    var seconds: Double
    var sentPackets: Int
    var inputPacketsPerSecond: Double
    var expectedDeliveries: Int
    var delivered: Int
    var deliveredPerSecond: Double
    var lossPercent: Double
    var latencyMs: [String: Double]
    var latencyOverflow: Int
    var serverCPUSeconds: Double
    var serverCPUPercentOfCore: Double
    var serverMicrosecondsPerDelivered: Double?
    /// pttd's utime alone over the run, and per delivered packet: the relay's user-space cost (its code, the
    /// Swift runtime, crypto), without the kernel's sending and receiving.
    var serverUserCPUSeconds: Double
    var serverUserMicrosecondsPerDelivered: Double?
    var serverCoreBusyPercent: Double?
    var serverCoreMicrosecondsPerDelivered: Double?
    var benchCoreBusyPercent: Double?
    var benchCPUPercent: Double
    var serverMaxRSSMB: Double?
    /// The largest VmRSS sampled (every 50 ms) while the talker was sending and the relay draining.
    var serverMaxRSSWhileSendingMB: Double?
    /// VmHWM (peak RSS over pttd's life) read right after the last delivery, before anything else is asked.
    var serverPeakRSSAtEndOfSendingMB: Double?
    var serverRSSMB: Double?
    var serverRSSBeforeRunMB: Double?
    var serverThreads: Int?
    var backgroundServerCoreBusyPercent: Double?
    var backgroundBenchCoreBusyPercent: Double?
    var setupJoinSeconds = 0.0
    /// pttd's CPU time from its start until every member had joined.
    var serverCPUSecondsUntilJoined: Double?
    var setupReachSeconds = 0.0
    var verifiedPackets: Int
    var verifyFailures: Int
    var unmatchedPackets: Int
    var wrongSSRC: Int
    var duplicates: Int
    var burstRestarts: Int
    var floodStalls: Int
    var missingTimestamps: Int
    var arrivalClock = ""
    var sendErrors: Int
    var keepAlivesSent: Int
    var listenersWithNothing: Int
    var minPerListener: Int
    var maxPerListener: Int
    var relayCounters: [String: Int] = [:]
    var relaySocketDrops = 0
    var listenerSocketDrops = 0
    var floorAtEnd = ""
    var serverEnding = ""
    /// How pttd stopped: seconds from SIGTERM to exit, whether SIGKILL was needed, whether it was under load.
    var serverStop: ServerProcess.StopOutcome?
    /// Control connections over TLS (pinned certificate) or plain.
    var controlTLS = false
    var dataDirectory: String?
    /// With --late-listeners: what they received and pttd's catch-up counters.
    var lateListeners: LateListenerReport?
    /// With --late-after or --late-listeners: the listeners' latency in the catch-up window.
    var catchUpWindow: CatchUpWindowReport?
    var machine: Machine?
    var problems: [String] = []

    init(
        listeners: Int, security: String, mode: String, result: LoadEngine.Result, offeredInputRate: Double?,
        floodWindow: Int?, payloadBytes: Int
    ) {
        self.listeners = listeners
        self.security = security
        self.mode = mode
        self.payloadBytes = payloadBytes
        self.offeredInputPacketsPerSecond = offeredInputRate
        self.offeredDeliveriesPerSecond = offeredInputRate.map { $0 * Double(listeners) }
        self.floodWindow = floodWindow
        let sending = result.sending
        let receiving = result.receiving
        // Rate mode: the nominal sending time; flood: first send to last delivery.
        let seconds = offeredInputRate.map { Double(sending.sent) / $0 } ?? sending.activeSeconds
        self.seconds = seconds
        sentPackets = sending.sent
        inputPacketsPerSecond = Double(sending.sent) / max(seconds, 1e-9)
        expectedDeliveries = sending.sent * listeners
        delivered = receiving.delivered
        deliveredPerSecond = Double(receiving.delivered) / max(seconds, 1e-9)
        lossPercent = expectedDeliveries == 0 ? 0 : 100 * (1 - Double(receiving.delivered) / Double(expectedDeliveries))
        latencyMs = result.latency.milliseconds
        latencyOverflow = result.latency.overflow
        let start = result.start!
        let end = result.end!
        let wall = Double(end.time - start.time) / 1e9
        serverCPUSeconds = end.serverCPU - start.serverCPU
        serverCPUPercentOfCore = 100 * serverCPUSeconds / wall
        serverMicrosecondsPerDelivered =
            receiving.delivered > 0 ? serverCPUSeconds * 1e6 / Double(receiving.delivered) : nil
        serverUserCPUSeconds = end.serverUserCPU - start.serverUserCPU
        serverUserMicrosecondsPerDelivered =
            receiving.delivered > 0 ? serverUserCPUSeconds * 1e6 / Double(receiving.delivered) : nil
        let coreTotal = end.serverCore.total - start.serverCore.total
        if coreTotal > 0 {
            let busy = end.serverCore.busy - start.serverCore.busy
            serverCoreBusyPercent = 100 * busy / coreTotal
            serverCoreMicrosecondsPerDelivered =
                receiving.delivered > 0 ? busy * 1e6 / Double(receiving.delivered) : nil
        }
        let benchTotal = end.benchCore.total - start.benchCore.total
        if benchTotal > 0 { benchCoreBusyPercent = 100 * (end.benchCore.busy - start.benchCore.busy) / benchTotal }
        benchCPUPercent = 100 * (end.benchCPU - start.benchCPU) / wall
        verifiedPackets = receiving.verified
        verifyFailures = receiving.verifyFailed
        unmatchedPackets = receiving.unmatched
        wrongSSRC = receiving.wrongSSRC
        duplicates = receiving.duplicates
        burstRestarts = receiving.burstRestarts
        floodStalls = sending.floodStalls
        missingTimestamps = receiving.missingTimestamps
        sendErrors = sending.sendErrors
        keepAlivesSent = sending.keepAlivesSent
        listenersWithNothing = result.spread.withNothing
        minPerListener = result.spread.min
        maxPerListener = result.spread.max
    }

    mutating func checkProblems() {
        if verifyFailures > 0 {
            problems.append("\(verifyFailures) sampled packets failed decryption or payload comparison")
        }
        if verifiedPackets == 0 && delivered > 0 { problems.append("no packet was verified") }
        if unmatchedPackets > 0 { problems.append("\(unmatchedPackets) packets could not be matched to a sent packet") }
        if wrongSSRC > 0 { problems.append("\(wrongSSRC) packets carried another listener's SSRC") }
        if duplicates > 0 { problems.append("\(duplicates) duplicate packets") }
        if burstRestarts > 0 {
            problems.append("the relay started \(burstRestarts) new bursts mid-run (floor lost and regained?)")
        }
        if listenersWithNothing > 0 { problems.append("\(listenersWithNothing) listeners received nothing") }
        if missingTimestamps > 0 {
            problems.append("\(missingTimestamps) packets without a kernel timestamp (their arrival is when read)")
        }
        if sendErrors > 0 { problems.append("\(sendErrors) talker send errors") }
        if latencyOverflow > 0 { problems.append("\(latencyOverflow) packets took over 60 s") }
        if let p99 = latencyMs["p99"], p99 > 200 {
            problems.append("p99 latency over 200 ms: the relay did not keep up")
        }
        if max(backgroundServerCoreBusyPercent ?? 0, backgroundBenchCoreBusyPercent ?? 0) > 10 {
            problems.append("the machine was not quiet before the run (other processes kept a core over 10 % busy)")
        }
        if serverStop?.killed == true { problems.append("pttd did not stop within 5 s of SIGTERM and was killed") }
        if floorAtEnd != "taken" && floorAtEnd != "n/a" {
            problems.append("the floor was \(floorAtEnd) at the end of the run (expected taken)")
        }
        checkLateListenerProblems()
    }
}
#endif
