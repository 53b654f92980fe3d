#if os(Linux)
import Foundation
import NIOCore
import PTTProtocol

extension PTTBench {
    /// The sequential phase of `--join-only`: every member joins channel "bench-seq" in turn, and join #k is timed
    /// until its `joined` and the k − 1 `member-joined` it causes have been read. Fills `report.sequential`, the
    /// windows and ratios.
    func joinOneByOne(
        members: [JoinMember], server: ServerProcess, tally: MemberJoinedTally, askEvents: Bool?,
        report: inout JoinReport
    ) async throws {
        let frame = try ControlFrame(ControlMessage.join(Join(channel: "bench-seq", memberEvents: askEvents)).withID(2))
            .bytes
        var expectedEvents = 0
        /// Members already in the channel that pttd tells of joins (what their `joined` said; absent: all).
        var receivers = 0
        var waitForEvents = true
        let server0 = ProcStats.processCPUTimes(pid: server.pid) ?? (0, 0)
        let bench0 = ProcStats.ownCPUSeconds()
        let start = ContinuousClock.now
        for (offset, member) in members.enumerated() {
            let index = offset + 1
            expectedEvents += receivers
            let user0 = ProcStats.processCPUTimes(pid: server.pid)?.user
            let cpu0 = ProcStats.schedulerCPUSeconds(pid: server.pid) ?? 0
            let times: JoinTimes
            do {
                times = try await member.join(
                    frame, re: 2, timeout: .seconds(30), settling: waitForEvents ? expectedEvents : nil,
                    tally: tally, settleTimeout: .seconds(2)
                ).get()
            } catch {
                throw BenchError("sequential join #\(index): \(error)")
            }
            let cpu1 = ProcStats.schedulerCPUSeconds(pid: server.pid) ?? 0
            let user1 = ProcStats.processCPUTimes(pid: server.pid)?.user
            if times.memberEvents ?? true { receivers += 1 }
            var settledAt = times.joined
            if waitForEvents {
                if let settled = times.settled {
                    settledAt = settled
                } else {
                    // The wait gave up 2 s after `joined`; time the join to then, and stop waiting for later joins.
                    settledAt = .now
                    report.eventWaitTimeouts += 1
                    waitForEvents = false
                    report.problems.append(
                        "join #\(index): not every member-joined arrived within 2 s; later joins timed to `joined` only"
                    )
                }
            }
            report.sequential.append(
                .init(
                    index: index, joinedMs: Self.seconds(times.joined - times.sent) * 1000,
                    settledMs: Self.seconds(settledAt - times.sent) * 1000, serverCPUMicroseconds: (cpu1 - cpu0) * 1e6,
                    serverUserCPUMicroseconds: user0.flatMap { u0 in user1.map { ($0 - u0) * 1e6 } },
                    settled: times.settled != nil))
            if index % 200 == 0 { progress("sequential joins: \(index) of \(load.listeners)") }
        }
        report.sequentialSeconds = Self.seconds(ContinuousClock.now - start)
        let server1 = ProcStats.processCPUTimes(pid: server.pid) ?? (0, 0)
        report.sequentialServerCPUSeconds = (server1.user + server1.system) - (server0.user + server0.system)
        report.sequentialServerUserCPUSeconds = server1.user - server0.user
        report.sequentialBenchCPUSeconds = ProcStats.ownCPUSeconds() - bench0

        // Whatever was not waited for must still have arrived: give the stragglers 2 s, then count what is missing.
        report.memberJoinedExpected = expectedEvents
        report.memberEventReceivers = receivers
        let arrived: Int
        let expected = expectedEvents
        do {
            arrived = try await tally.eventLoop.flatSubmit {
                tally.wait(until: expected, timeout: .seconds(2)).map { _ in expected }
            }.get()
        } catch {
            arrived = try await tally.current()
        }
        report.memberJoinedMissing = expectedEvents - arrived
        report.joinsNotAwaited = report.sequential.filter { $0.settled == false }.count - report.eventWaitTimeouts
        if report.memberJoinedMissing! > 0 {
            report.problems.append(
                "\(report.memberJoinedMissing!) of \(expectedEvents) member-joined of bench-seq never arrived")
        }
        Self.summarize(&report, members: load.listeners)
    }

    /// Medians over joins 6–15 and N−9…N, and their ratios.
    static func summarize(_ report: inout JoinReport, members: Int) {
        func window(_ range: ClosedRange<Int>) -> JoinReport.Window? {
            let joins = report.sequential.filter { range.contains($0.index) }
            guard !joins.isEmpty else { return nil }
            func median(_ values: [Double]) -> Double {
                let sorted = values.sorted()
                return sorted.count % 2 == 1
                    ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
            }
            let cpu = joins.map(\.serverCPUMicroseconds)
            let user = joins.compactMap(\.serverUserCPUMicroseconds)
            let count = Double(joins.count)
            var result = JoinReport.Window(
                first: range.lowerBound, last: range.upperBound, medianJoinedMs: median(joins.map(\.joinedMs)),
                medianSettledMs: median(joins.map(\.settledMs)), medianServerCPUMicroseconds: median(cpu))
            result.meanServerCPUMicroseconds = cpu.reduce(0, +) / count
            if user.count == joins.count { result.meanServerUserCPUMicroseconds = user.reduce(0, +) / count }
            result.unsettled = joins.filter { $0.settled == false }.count
            return result
        }
        guard members >= 30 else {
            report.problems.append("fewer than 30 members: no early/late comparison")
            return
        }
        report.early = window(6...15)
        report.late = window((members - 9)...members)
        if let early = report.early, let late = report.late {
            report.cpuRatio = late.medianServerCPUMicroseconds / max(early.medianServerCPUMicroseconds, 1e-3)
            report.settledRatio = late.medianSettledMs / max(early.medianSettledMs, 1e-6)
            report.joinedRatio = late.medianJoinedMs / max(early.medianJoinedMs, 1e-6)
        }
    }
}
#endif
