#if os(Linux)
import Foundation

/// `pttbench floor-latency`'s text output: one line per run.
enum FloorLatencyText {
    static func line(_ result: FloorLatencyRun.Result) -> String {
        var text = String(
            format: "%@ run %d (load average %@): %@", result.scenario, result.run,
            result.loadAverage.map { String(format: "%.2f", $0) }.joined(separator: " "), figures(result.latency))
        if let during = result.duringLoad { text += "; during load: " + figures(during) }
        if let share = result.serverShare { text += "\n  pttd's own share: " + figures(share) }
        if let load = result.load { text += "\n  load: " + describe(load) }
        if !result.problems.isEmpty { text += "\n  problems: " + result.problems.joined(separator: "; ") }
        return text
    }

    /// Milliseconds with two decimals, or "-" for a figure the run has not.
    private static func ms(_ value: Double?) -> String { value.map { String(format: "%.2f", $0) } ?? "-" }

    static func figures(_ summary: FloorLatencySummary) -> String {
        return
            "n \(summary.count), p50 \(ms(summary.p50Ms)) ms, p90 \(ms(summary.p90Ms)), p99 \(ms(summary.p99Ms)), max \(ms(summary.maxMs))"
    }

    static func figures(_ share: FloorLatencyServerShare) -> String {
        return "\(share.count) \(share.request) grants, mean \(ms(share.meanMs)) ms, p50 ≤ \(ms(share.p50AtMostMs)), "
            + "p90 ≤ \(ms(share.p90AtMostMs)), p99 ≤ \(ms(share.p99AtMostMs)) (read to write)"
    }

    static func describe(_ load: FloorLatencyLoadReport) -> String {
        var parts = [load.what, String(format: "window %.2f–%.2f s", load.startSeconds, load.endSeconds)]
        if let joins = load.joins { parts.append("\(joins) joins") }
        if let rate = load.joinsPerSecond { parts.append(String(format: "%.0f joins/s", rate)) }
        if let leaves = load.leaves { parts.append("\(leaves) leaves") }
        if let rate = load.leavesPerSecond { parts.append(String(format: "%.0f leaves/s", rate)) }
        if let sent = load.packetsSent { parts.append("\(sent) packets sent") }
        if let recorded = load.packetsRecorded {
            parts.append("\(recorded) packets recorded in \(load.burstsRecorded ?? 0) bursts")
        }
        if let backends = load.stoppedBackends {
            parts.append(
                "stopped \(backends.joined(separator: ", ")) for \(String(format: "%.2f", load.stoppedSeconds ?? 0)) s")
        }
        if let connected = load.membersConnected {
            parts.append("\(connected) held members connected, \(load.membersDisconnected ?? 0) disconnected")
        }
        if let gap = load.longestHeartbeatGapMs { parts.append(String(format: "longest heartbeat gap %.0f ms", gap)) }
        if let missing = load.acknowledgedJoinsMissingFromDatabase {
            parts.append("\(missing) acknowledged joins missing from the database")
        }
        if load.failures > 0 { parts.append("\(load.failures) failed (\(load.firstFailure ?? "?"))") }
        return parts.joined(separator: ", ")
    }
}
#endif
