#if os(Linux)
import Foundation

extension BenchReport {
    /// The report as the text block pttbench prints without --json.
    func text() -> String {
        func f(_ value: Double?, _ digits: Int = 1) -> String {
            value.map { String(format: "%.\(digits)f", $0) } ?? "-"
        }
        func k(_ value: Double) -> String {
            value >= 10_000 ? String(format: "%.1fk", value / 1000) : String(format: "%.0f", value)
        }
        let offered =
            mode == "flood"
            ? "flood (window \(floodWindow ?? 0) deliveries): input \(k(inputPacketsPerSecond)) packets/s achieved"
            : "\(k(offeredDeliveriesPerSecond ?? 0)) deliveries/s (input \(f(offeredInputPacketsPerSecond, 0)) packets/s × \(listeners))"
        var lines = [
            "pttbench: \(listeners) listeners\(scanningListeners.map { " (\($0) scanning)" } ?? ""), \(security), \(mode), \(f(seconds, 2)) s, \(payloadBytes)-byte Opus payloads",
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
        lines.append(
            "  relay counters   received \(received), forwarded \(forwarded)"
                + (interesting.isEmpty
                    ? ""
                    : ", "
                        + interesting.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        )
        lines.append(
            "  pttd             \(serverEnding)" + (dataDirectory.map { ", data kept in \($0)" } ?? "")
                + (controlTLS ? "; control connections over TLS" : ""))
        lines += catchUpWindowLines() + lateListenerLines()
        if !problems.isEmpty { lines.append("  PROBLEMS         " + problems.joined(separator: "; ")) }
        return lines.joined(separator: "\n")
    }
}
#endif
