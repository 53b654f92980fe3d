#if os(Linux)
import Foundation

/// The result of `--join-only`. Fields added after the first matrix runs are optional, so older JSON still reads.
struct JoinReport: Codable {
    /// One sequential join.
    struct Join: Codable {
        /// 1-based: the channel has `index` members once it is done.
        var index: Int
        /// From writing `join` to reading `joined`.
        var joinedMs: Double
        /// From writing `join` until every earlier member that pttd tells of joins has read its `member-joined` (or the
        /// wait gave up).
        var settledMs: Double
        /// pttd's CPU time (all threads, scheduler clock, ns resolution) over the same span.
        var serverCPUMicroseconds: Double
        /// pttd's utime over the span, from /proc/PID/stat: in clock ticks (10 ms), so one join reads 0, 10 000 or
        /// 20 000 µs; only sums over many joins mean something.
        var serverUserCPUMicroseconds: Double?
        /// False when the `member-joined` events were not waited for (after a wait gave up) or did not all arrive.
        var settled: Bool?
    }

    struct Window: Codable {
        var first: Int
        var last: Int
        var medianJoinedMs: Double
        var medianSettledMs: Double
        var medianServerCPUMicroseconds: Double
        /// Mean over the window's joins of the scheduler-clock CPU (to compare with the utime mean).
        var meanServerCPUMicroseconds: Double?
        /// The window's utime (the sum of its joins', /proc/PID/stat ticks) per join: ±10 ms / joins in the window.
        var meanServerUserCPUMicroseconds: Double?
        /// Joins of the window whose events did not all arrive (or were not waited for); their settledMs is not a
        /// settle time.
        var unsettled: Int?
    }

    var members: Int
    var controlTLS: Bool
    var connectParallelism: Int
    /// Parallel phase: connect (TLS handshake included), hello/welcome and join of every member, wall time.
    var parallelJoinSeconds: Double
    /// pttd's utime+stime over the parallel phase.
    var parallelServerCPUSeconds: Double
    /// pttd's utime alone over the parallel phase (/proc/PID/stat).
    var parallelServerUserCPUSeconds: Double?
    /// pttbench's own CPU over the parallel phase (getrusage RUSAGE_SELF), user + system, and the two parts.
    var parallelBenchCPUSeconds: Double?
    var parallelBenchUserCPUSeconds: Double?
    var parallelBenchSystemCPUSeconds: Double?
    var sequential: [Join] = []
    var early: Window?
    var late: Window?
    /// late / early, of the medians.
    var cpuRatio: Double?
    var settledRatio: Double?
    var joinedRatio: Double?
    /// Joins whose member-joined events did not all arrive within 2 s (the wait then gave up for good).
    var eventWaitTimeouts = 0
    /// Joins after such a timeout, timed to `joined` only.
    var joinsNotAwaited: Int?
    /// The `memberEvents` every join sent (nil: left out, pttd decides), and how many members of the sequential
    /// channel pttd said it tells of joins (their `joined`'s `memberEvents`; absent counts as told).
    var memberEventsAsked: Bool?
    var memberEventReceivers: Int?
    /// member-joined of the sequential channel expected in all, and how many had not arrived 2 s after the last join.
    var memberJoinedExpected: Int?
    var memberJoinedMissing: Int?
    /// The sequential phase as a whole: wall, pttd utime+stime and utime (/proc/PID/stat), pttbench's CPU.
    var sequentialSeconds: Double?
    var sequentialServerCPUSeconds: Double?
    var sequentialServerUserCPUSeconds: Double?
    var sequentialBenchCPUSeconds: Double?
    var serverPeakRSSMB: Double?
    var serverStop: ServerProcess.StopOutcome?
    var machine: BenchReport.Machine?
    var method = ""
    var problems: [String] = []

    func text() -> String {
        func f(_ value: Double?, _ digits: Int = 2) -> String {
            value.map { String(format: "%.\(digits)f", $0) } ?? "-"
        }
        func window(_ w: Window?) -> String {
            guard let w else { return "-" }
            let unsettled = (w.unsettled ?? 0) > 0 ? " (\(w.unsettled!) not settled)" : ""
            return "joins \(w.first)–\(w.last): pttd CPU \(f(w.medianServerCPUMicroseconds, 0)) µs median, "
                + "\(f(w.meanServerCPUMicroseconds, 0)) µs mean, utime \(f(w.meanServerUserCPUMicroseconds, 0)) µs mean; "
                + "joined after \(f(w.medianJoinedMs, 3)) ms, settled after \(f(w.medianSettledMs, 3)) ms\(unsettled) (medians)"
        }
        func share(_ part: Double?, _ whole: Double?) -> String {
            guard let part, let whole, whole > 0 else { return "-" }
            return String(format: "%.0f %%", 100 * part / whole)
        }
        var lines = [
            "pttbench joins: \(members) members, control over \(controlTLS ? "TLS (pinned)" : "plain TCP"), "
                + "\(connectParallelism) connects at a time",
            "  all at once      \(f(parallelJoinSeconds)) s wall; pttd CPU \(f(parallelServerCPUSeconds)) s (utime+stime), "
                + "utime \(f(parallelServerUserCPUSeconds)) s; pttbench CPU \(f(parallelBenchCPUSeconds)) s "
                + "(user \(f(parallelBenchUserCPUSeconds)), sys \(f(parallelBenchSystemCPUSeconds))) = "
                + "\(share(parallelBenchCPUSeconds, parallelJoinSeconds)) of its core",
            "  one at a time    \(window(early))",
            "                   \(window(late))",
            "  ratio            late/early: pttd CPU \(f(cpuRatio)), settled \(f(settledRatio)), joined \(f(joinedRatio))",
            "  sequential       \(f(sequentialSeconds)) s wall; pttd CPU \(f(sequentialServerCPUSeconds)) s, utime "
                + "\(f(sequentialServerUserCPUSeconds)) s; pttbench CPU \(f(sequentialBenchCPUSeconds)) s; member-joined "
                + "missing \(memberJoinedMissing.map(String.init) ?? "-") of \(memberJoinedExpected.map(String.init) ?? "-"); "
                + "wait timeouts \(eventWaitTimeouts)",
            "  member events    \(memberEventsAsked == true ? "asked for by every member" : "left to pttd"): "
                + "\(memberEventReceivers.map(String.init) ?? "-") of \(members) members of bench-seq are told of joins",
            "  server           peak RSS \(f(serverPeakRSSMB, 1)) MB; \(serverStop?.ending ?? "-")",
            "  method           \(method)",
        ]
        if !problems.isEmpty { lines.append("  PROBLEMS         " + problems.joined(separator: "; ")) }
        return lines.joined(separator: "\n")
    }
}
#endif
