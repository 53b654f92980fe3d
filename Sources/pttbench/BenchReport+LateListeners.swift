#if os(Linux)
/// The late listeners' part of a report (`--late-listeners`): what they received, counted apart from the live
/// listeners' figures, and pttd's catch-up counters over the run.
struct LateListenerReport: Codable {
    var listeners: Int
    /// pttd's `catchUp.mode` in the run; only with late-joiners must every late listener catch up.
    var catchUpMode: String
    /// pttd's `catchUp.speed` when given (nil: pttd's default, 4).
    var catchUpSpeed: Double?
    /// Seconds into the sending when they sent their first keep-alive.
    var lateAfterSeconds: Double
    /// Late members the relay could already send to when sending started (must be 0) and at the end.
    var reachableBeforeSending: Int
    var reachableAtEnd: Int
    /// Datagrams the kernel dropped at the late listeners' sockets over the run.
    var socketDrops = 0
    var received: LateTally
    var catchUp: CatchUpFigures
}

/// The live listeners' latency for the packets sent in the catch-up window (from --late-after, for
/// `LateListenerOptions.windowSeconds`), apart from the whole run's: with late listeners, the stretch when pttd
/// catches them up; without, the same stretch of a run to compare with.
struct CatchUpWindowReport: Codable {
    /// Seconds into the sending.
    var fromSeconds: Double
    var toSeconds: Double
    var packets: Int
    var latencyMs: [String: Double]

    init(from: Double, seconds: Double, packets: Int, latency: LatencySummary) {
        fromSeconds = from
        toSeconds = from + seconds
        self.packets = packets
        latencyMs = latency.milliseconds.filter { ["p50", "p99", "p99.9", "max"].contains($0.key) }
    }
}

extension BenchReport {
    /// The text report's line about the catch-up window (none without one).
    func catchUpWindowLines() -> [String] {
        guard let window = catchUpWindow else { return [] }
        func f(_ value: Double?) -> String { value.map { String(format: "%.3f", $0) } ?? "-" }
        let latency = window.latencyMs
        return [
            "  catch-up window  listeners' packets sent \(String(format: "%.1f–%.1f", window.fromSeconds, window.toSeconds)) s "
                + "into the sending (\(window.packets) deliveries): p50 \(f(latency["p50"])) ms, p99 \(f(latency["p99"])), "
                + "p99.9 \(f(latency["p99.9"])), max \(f(latency["max"])) ms"
        ]
    }

    /// The text report's lines about late listeners (none without them).
    func lateListenerLines() -> [String] {
        guard let late = lateListeners else { return [] }
        func f(_ value: Double?, _ digits: Int = 1) -> String {
            value.map { String(format: "%.\(digits)f", $0) } ?? "-"
        }
        let received = late.received
        let catchUp = late.catchUp
        let finished = ["live", "ended", "cancelled"].map { "\($0) \(catchUp.finished[$0] ?? 0)" }
        return [
            "  late listeners   \(late.listeners) (catchUp.mode \(late.catchUpMode)\(late.catchUpSpeed.map { ", speed \($0)" } ?? "")) heard \(f(late.lateAfterSeconds)) s into the sending "
                + "(\(late.reachableBeforeSending) reachable before, \(late.reachableAtEnd) at the end), "
                + "not counted above: received \(received.delivered) packets, "
                + "\(received.deliveredSentBeforeHeard) of them sent before they were heard "
                + "(\(received.sentBeforeHeard) per listener)",
            "                   per late listener \(received.minPerListener)…\(received.maxPerListener) distinct "
                + "of the \(received.expectedPerListener) sent (\(received.completeListeners) of \(late.listeners) "
                + "got every packet); caught up (last packet > 100 ms behind) \(f(received.caughtUpSecondsMedian, 2)) s "
                + "after being heard (median), \(f(received.caughtUpSecondsMax, 2)) s (slowest); "
                + "\(received.verified) verified (\(received.verifyFailed) failed), \(received.duplicates) duplicates, "
                + "socket drops \(late.socketDrops)",
            "  catch-up (pttd)  started \(catchUp.started), kept packets sent \(catchUp.packets), finished "
                + finished.joined(separator: ", ")
                + "; lag at the end mean \(f(catchUp.meanLagSeconds.map { $0 * 1000 }, 1)) ms "
                + "(sum \(f(catchUp.lagSecondsSum, 3)) s over \(catchUp.lagCount)); "
                + "evicted \(catchUp.evictedPackets), skipped \(catchUp.skippedPackets)",
        ]
    }

    /// What went wrong with the late listeners, if anything.
    mutating func checkLateListenerProblems() {
        guard let late = lateListeners else { return }
        let received = late.received
        if late.reachableBeforeSending > 0 {
            problems.append("\(late.reachableBeforeSending) late listeners were reachable before the sending")
        }
        if received.verifyFailed > 0 {
            problems.append("\(received.verifyFailed) late listeners' sampled packets failed verification")
        }
        if received.wrongSSRC + received.unmatched > 0 {
            problems.append(
                "late listeners: \(received.wrongSSRC) packets with another SSRC, \(received.unmatched) unmatched")
        }
        guard late.catchUpMode == "late-joiners" else { return }
        if received.completeListeners < late.listeners {
            problems.append(
                "\(late.listeners - received.completeListeners) late listeners missed packets "
                    + "(\(received.minPerListener) of \(received.expectedPerListener) at worst)")
        }
        if late.catchUp.started != late.listeners {
            problems.append("pttd started \(late.catchUp.started) catch-ups for \(late.listeners) late listeners")
        }
    }
}
#endif
