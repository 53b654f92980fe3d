#if os(Linux)
import Foundation
import Glibc

/// The relay's counters from `/metrics` (`ptt_media_*`), by series.
struct RelayCounters {
    var values: [String: Double] = [:]

    init(_ exposition: String) {
        for line in exposition.split(separator: "\n") where line.hasPrefix("ptt_media_") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            values[String(line[..<space])] = value
        }
    }

    private init(values: [String: Double]) { self.values = values }

    /// Differences, keeping only series that moved.
    func minus(_ earlier: RelayCounters) -> [String: Int] {
        var result: [String: Int] = [:]
        for (key, value) in values {
            let delta = Int(value - (earlier.values[key] ?? 0))
            if delta != 0 { result[key] = delta }
        }
        return result
    }
}

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
            let model = cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }
                .map { $0.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "?" } ?? "?"
            var name = utsname()
            uname(&name)
            let release = withUnsafeBytes(of: name.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            return Machine(cpuModel: model, cores: Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))), kernel: release,
                           serverCPU: serverCPU, benchCPU: benchCPU)
        }
    }

    var listeners: Int
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
    var machine: Machine?
    var problems: [String] = []

    init(listeners: Int, security: String, mode: String, result: LoadEngine.Result, offeredInputRate: Double?,
         floodWindow: Int?, payloadBytes: Int) {
        self.listeners = listeners
        self.security = security
        self.mode = mode
        self.payloadBytes = payloadBytes
        self.offeredInputPacketsPerSecond = offeredInputRate
        self.offeredDeliveriesPerSecond = offeredInputRate.map { $0 * Double(listeners) }
        self.floodWindow = floodWindow
        // Rate mode: the nominal sending time; flood: first send to last delivery.
        let seconds = offeredInputRate.map { Double(result.sent) / $0 } ?? result.activeSeconds
        self.seconds = seconds
        sentPackets = result.sent
        inputPacketsPerSecond = Double(result.sent) / max(seconds, 1e-9)
        expectedDeliveries = result.sent * listeners
        delivered = result.delivered
        deliveredPerSecond = Double(result.delivered) / max(seconds, 1e-9)
        lossPercent = expectedDeliveries == 0 ? 0 : 100 * (1 - Double(result.delivered) / Double(expectedDeliveries))
        var latency: [String: Double] = [:]
        latency["p50"] = result.p50
        latency["p90"] = result.p90
        latency["p99"] = result.p99
        latency["p99.9"] = result.p999
        latency["max"] = result.maxLatency
        latency["mean"] = result.meanLatency
        latencyMs = latency
        latencyOverflow = result.latencyOverflow
        let start = result.start!, end = result.end!
        let wall = Double(end.time - start.time) / 1e9
        serverCPUSeconds = end.serverCPU - start.serverCPU
        serverCPUPercentOfCore = 100 * serverCPUSeconds / wall
        serverMicrosecondsPerDelivered = result.delivered > 0 ? serverCPUSeconds * 1e6 / Double(result.delivered) : nil
        serverUserCPUSeconds = end.serverUserCPU - start.serverUserCPU
        serverUserMicrosecondsPerDelivered = result.delivered > 0 ? serverUserCPUSeconds * 1e6 / Double(result.delivered) : nil
        let coreTotal = end.serverCore.total - start.serverCore.total
        if coreTotal > 0 {
            let busy = end.serverCore.busy - start.serverCore.busy
            serverCoreBusyPercent = 100 * busy / coreTotal
            serverCoreMicrosecondsPerDelivered = result.delivered > 0 ? busy * 1e6 / Double(result.delivered) : nil
        }
        let benchTotal = end.benchCore.total - start.benchCore.total
        if benchTotal > 0 { benchCoreBusyPercent = 100 * (end.benchCore.busy - start.benchCore.busy) / benchTotal }
        benchCPUPercent = 100 * (end.benchCPU - start.benchCPU) / wall
        verifiedPackets = result.verified
        verifyFailures = result.verifyFailed
        unmatchedPackets = result.unmatched
        wrongSSRC = result.wrongSSRC
        duplicates = result.duplicates
        burstRestarts = result.burstRestarts
        floodStalls = result.floodStalls
        missingTimestamps = result.missingTimestamps
        sendErrors = result.sendErrors
        keepAlivesSent = result.keepAlivesSent
        listenersWithNothing = result.listenersWithNothing
        minPerListener = result.minPerListener
        maxPerListener = result.maxPerListener
    }

    mutating func checkProblems() {
        if verifyFailures > 0 { problems.append("\(verifyFailures) sampled packets failed decryption or payload comparison") }
        if verifiedPackets == 0 && delivered > 0 { problems.append("no packet was verified") }
        if unmatchedPackets > 0 { problems.append("\(unmatchedPackets) packets could not be matched to a sent packet") }
        if wrongSSRC > 0 { problems.append("\(wrongSSRC) packets carried another listener's SSRC") }
        if duplicates > 0 { problems.append("\(duplicates) duplicate packets") }
        if burstRestarts > 0 { problems.append("the relay started \(burstRestarts) new bursts mid-run (floor lost and regained?)") }
        if listenersWithNothing > 0 { problems.append("\(listenersWithNothing) listeners received nothing") }
        if missingTimestamps > 0 { problems.append("\(missingTimestamps) packets without a kernel timestamp (their arrival is when read)") }
        if sendErrors > 0 { problems.append("\(sendErrors) talker send errors") }
        if latencyOverflow > 0 { problems.append("\(latencyOverflow) packets took over 60 s") }
        if let p99 = latencyMs["p99"], p99 > 200 { problems.append("p99 latency over 200 ms: the relay did not keep up") }
        if max(backgroundServerCoreBusyPercent ?? 0, backgroundBenchCoreBusyPercent ?? 0) > 10 {
            problems.append("the machine was not quiet before the run (other processes kept a core over 10 % busy)")
        }
        if serverStop?.killed == true { problems.append("pttd did not stop within 5 s of SIGTERM and was killed") }
        if floorAtEnd != "taken" && floorAtEnd != "n/a" { problems.append("the floor was \(floorAtEnd) at the end of the run (expected taken)") }
    }

    func json() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return String(decoding: (try? encoder.encode(self)) ?? Data(), as: UTF8.self)
    }

    func text() -> String {
        func f(_ value: Double?, _ digits: Int = 1) -> String { value.map { String(format: "%.\(digits)f", $0) } ?? "-" }
        func k(_ value: Double) -> String { value >= 10_000 ? String(format: "%.1fk", value / 1000) : String(format: "%.0f", value) }
        let offered = mode == "flood"
            ? "flood (window \(floodWindow ?? 0) deliveries): input \(k(inputPacketsPerSecond)) packets/s achieved"
            : "\(k(offeredDeliveriesPerSecond ?? 0)) deliveries/s (input \(f(offeredInputPacketsPerSecond, 0)) packets/s × \(listeners))"
        var lines = [
            "pttbench: \(listeners) listeners, \(security), \(mode), \(f(seconds, 2)) s, \(payloadBytes)-byte Opus payloads",
            "  offered          \(offered)",
            "  sent             \(sentPackets) packets (\(k(inputPacketsPerSecond))/s) → \(expectedDeliveries) deliveries expected",
            "  delivered        \(delivered) = \(k(deliveredPerSecond)) packets/s across listeners; loss \(String(format: "%.3f", lossPercent)) %",
            "  added latency    (talker's send() to \(arrivalClock)) p50 \(f(latencyMs["p50"], 3)) ms, p90 \(f(latencyMs["p90"], 3)), p99 \(f(latencyMs["p99"], 3)), "
                + "p99.9 \(f(latencyMs["p99.9"], 3)), max \(f(latencyMs["max"], 3)) ms",
            "  server CPU       \(f(serverCPUPercentOfCore)) % of a core (pttd utime+stime), "
                + "\(f(serverMicrosecondsPerDelivered, 2)) µs per delivered packet; user space alone (utime) "
                + "\(f(serverUserMicrosecondsPerDelivered, 3)) µs per delivered packet (\(f(serverUserCPUSeconds, 2)) s)",
            "  server core      \(f(serverCoreBusyPercent)) % busy, \(f(serverCoreMicrosecondsPerDelivered, 2)) µs per delivered packet "
                + "(whole core incl. softirq)",
            "  server memory    max RSS \(f(serverMaxRSSWhileSendingMB)) MB while sending (VmRSS every 50 ms), "
                + "peak \(f(serverPeakRSSAtEndOfSendingMB)) MB (VmHWM at the end of sending, joins included), "
                + "RSS \(f(serverRSSBeforeRunMB)) MB before the run, \(f(serverRSSMB)) MB after; "
                + "\(serverThreads.map(String.init) ?? "?") threads",
            "  bench            core \(f(benchCoreBusyPercent)) % busy, pttbench \(f(benchCPUPercent)) % of a core; "
                + "setup: joins \(f(setupJoinSeconds)) s (pttd CPU \(f(serverCPUSecondsUntilJoined)) s), all heard \(f(setupReachSeconds)) s",
            "  background       cores \(f(backgroundServerCoreBusyPercent)) % / \(f(backgroundBenchCoreBusyPercent)) % busy in the second before the run "
                + "(other processes; should be near 0)",
            "  checks           \(verifiedPackets) packets verified (\(verifyFailures) failed), per listener \(minPerListener)…\(maxPerListener), "
                + "socket drops: relay \(relaySocketDrops), listeners \(listenerSocketDrops)",
        ]
        let interesting = relayCounters.filter { !$0.key.contains("forwarded") && !$0.key.contains("received") }
        let received = relayCounters.first { $0.key.hasPrefix("ptt_media_packets_received_total") }?.value ?? 0
        let forwarded = relayCounters.first { $0.key.hasPrefix("ptt_media_packets_forwarded_total") }?.value ?? 0
        lines.append("  relay counters   received \(received), forwarded \(forwarded)"
            + (interesting.isEmpty ? "" : ", " + interesting.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")))
        lines.append("  pttd             \(serverEnding)" + (dataDirectory.map { ", data kept in \($0)" } ?? "")
            + (controlTLS ? "; control connections over TLS" : ""))
        if !problems.isEmpty { lines.append("  PROBLEMS         " + problems.joined(separator: "; ")) }
        return lines.joined(separator: "\n")
    }
}
#endif
