#if os(Linux)
import ArgumentParser
import Foundation
import NIOCore
import NIOPosix
import PTTClient
import PTTProtocol
import Synchronization

/// `pttbench --join-only`: what joining a channel costs pttd, all at once and one at a time.
struct JoinBenchOptions: ParsableArguments {
    @Flag(name: .long, help: """
        Measure joins instead of audio: --listeners members join channel "bench" (--connect-parallelism at a time; \
        total wall seconds and pttd CPU), then the same connections join a second channel one at a time, and the \
        cost of join #k (pttd CPU and wall time from the join request until every earlier member has its \
        member-joined) is compared at k = 6…15 and k = N-9…N (medians). Use with --tls for the TLS figure.
        """)
    var joinOnly = false
}

/// `member-joined` events for one channel, counted as the bench clients read them.
final class JoinEventCounter: Sendable {
    let channel: String
    let count = Atomic<Int>(0)
    init(channel: String) { self.channel = channel }
}

/// The result of `--join-only`.
struct JoinReport: Codable {
    /// One sequential join.
    struct Join: Codable {
        /// 1-based: the channel has `index` members once it is done.
        var index: Int
        /// From writing `join` to reading `joined`.
        var joinedMs: Double
        /// From writing `join` until every earlier member has read its `member-joined` (or the wait gave up).
        var settledMs: Double
        /// pttd's CPU time (all threads, scheduler clock, ns resolution) over the same span.
        var serverCPUMicroseconds: Double
    }

    struct Window: Codable {
        var first: Int
        var last: Int
        var medianJoinedMs: Double
        var medianSettledMs: Double
        var medianServerCPUMicroseconds: Double
    }

    var members: Int
    var controlTLS: Bool
    var connectParallelism: Int
    /// Parallel phase: connect (TLS handshake included), hello/welcome and join of every member, wall time.
    var parallelJoinSeconds: Double
    /// pttd's utime+stime over the parallel phase.
    var parallelServerCPUSeconds: Double
    var sequential: [Join] = []
    var early: Window?
    var late: Window?
    /// late / early, of the medians.
    var cpuRatio: Double?
    var settledRatio: Double?
    var joinedRatio: Double?
    /// Joins whose member-joined events did not all arrive within 2 s (the wait then gave up for good).
    var eventWaitTimeouts = 0
    var serverPeakRSSMB: Double?
    var serverStop: ServerProcess.StopOutcome?
    var machine: BenchReport.Machine?
    var method = ""
    var problems: [String] = []

    func json() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return String(decoding: (try? encoder.encode(self)) ?? Data(), as: UTF8.self)
    }

    func text() -> String {
        func f(_ value: Double?, _ digits: Int = 2) -> String { value.map { String(format: "%.\(digits)f", $0) } ?? "-" }
        func window(_ w: Window?) -> String {
            guard let w else { return "-" }
            return "joins \(w.first)–\(w.last): pttd CPU \(f(w.medianServerCPUMicroseconds, 0)) µs, "
                + "joined after \(f(w.medianJoinedMs, 3)) ms, settled after \(f(w.medianSettledMs, 3)) ms (medians)"
        }
        var lines = [
            "pttbench joins: \(members) members, control over \(controlTLS ? "TLS (pinned)" : "plain TCP"), "
                + "\(connectParallelism) connects at a time",
            "  all at once      \(f(parallelJoinSeconds)) s wall, pttd CPU \(f(parallelServerCPUSeconds)) s (utime+stime)",
            "  one at a time    \(window(early))",
            "                   \(window(late))",
            "  ratio            late/early: pttd CPU \(f(cpuRatio)), settled \(f(settledRatio)), joined \(f(joinedRatio))",
            "  server           peak RSS \(f(serverPeakRSSMB, 1)) MB; \(serverStop?.ending ?? "-")",
            "  method           \(method)",
        ]
        if !problems.isEmpty { lines.append("  PROBLEMS         " + problems.joined(separator: "; ")) }
        return lines.joined(separator: "\n")
    }
}

extension PTTBench {
    /// How the bench's control clients connect: plain, or TLS pinned to the fingerprint pttd wrote to runtime.json
    /// (a known_hosts file of its own in pttd's temporary data directory, so nothing is trusted on first use).
    func controlSecurity(server: ServerProcess, endpoint: ServerEndpoint) throws -> ControlSecurity {
        guard tls else { return .plain }
        guard server.runtime.tls, let fingerprint = server.runtime.fingerprint else {
            throw BenchError("pttd was started with TLS but runtime.json has no fingerprint")
        }
        let path = server.dataDirectory + "/bench-known_hosts"
        try Data("\(endpoint.description) \(fingerprint)\n".utf8).write(to: URL(fileURLWithPath: path))
        return .tls(KnownHosts(path: path))
    }

    /// Connects `count` devices of `user` and joins each to `channel`, connectParallelism at a time. Every
    /// client's events are read and dropped (counting `member-joined` into `events` when given), for as long as
    /// the connection lives. Returns the clients in index order.
    func joinAll(count: Int, channel: String, user: AddUserResponse, server: ServerProcess, group: EventLoopGroup,
                 deadline: ContinuousClock.Instant, budget: Double, events: JoinEventCounter? = nil,
                 clients: inout [ControlClient], device: @escaping @Sendable (Int) -> String) async throws -> [(ControlClient, Joined)] {
        let endpoint = ServerEndpoint(host: "127.0.0.1", port: server.runtime.controlPort)
        let security = try controlSecurity(server: server, endpoint: endpoint)
        let expectTLS = tls
        var members = [(ControlClient, Joined)?](repeating: nil, count: count)
        try await withThrowingTaskGroup(of: (Int, ControlClient, Joined).self) { tasks in
            var next = 0
            func add() {
                let index = next
                next += 1
                tasks.addTask {
                    let client = try await ControlClient.connect(
                        to: endpoint, hello: Hello(user: "bench", secret: user.secret, device: device(index), client: "pttbench"),
                        security: security, timeout: .seconds(30), group: group)
                    do {
                        if expectTLS && (client.pinnedCertificate || client.serverFingerprint != server.runtime.fingerprint) {
                            throw BenchError("TLS: the server's certificate was not the one pinned from runtime.json")
                        }
                        let reply = try await client.request(.join(Join(channel: channel)), timeout: .seconds(30))
                        guard case .joined(let joined) = reply else { throw BenchError("join answered \(reply.type)") }
                        return (index, client, joined)
                    } catch {
                        await client.close()
                        throw error
                    }
                }
            }
            while next < min(connectParallelism, count) { add() }
            while let (index, client, joined) = try await tasks.next() {
                members[index] = (client, joined)
                clients.append(client)
                // Events for this client (member-joined of everyone after it…) are read and dropped.
                let stream = client.messages
                Task {
                    for await message in stream {
                        if let events, case .memberJoined(let event) = message, event.channel.name == events.channel {
                            events.count.add(1, ordering: .relaxed)
                        }
                    }
                }
                if next < count { add() }
                if ContinuousClock.now > deadline { throw BenchError("joining took longer than \(budget) s") }
            }
        }
        return members.map { $0! }
    }

    func runJoins() async throws {
        let server = try await ServerProcess.start(.init(
            executable: pttd ?? Self.siblingExecutable("pttd"), core: noPin ? nil : serverCPU, security: security,
            maxTalkTimeMs: 600_000, maxConnections: max(10_000, listeners + 100), logLevel: serverLogLevel, tls: tls))
        progress("pttd pid \(server.pid), data \(server.dataDirectory)")
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        var clients: [ControlClient] = []
        let outcome: Result<JoinReport, Error>
        do {
            outcome = .success(try await measureJoins(server: server, group: group, clients: &clients))
        } catch {
            outcome = .failure(error)
        }
        let stop = await server.stop()
        for client in clients { await client.close() }
        try? await group.shutdownGracefully()
        switch outcome {
        case .success(var report):
            report.serverStop = stop
            if stop.killed { report.problems.append("pttd did not stop within 5 s of SIGTERM and was killed") }
            if !keep { server.removeDataDirectory() }
            print(json ? report.json() : report.text())
        case .failure(let error):
            FileHandle.standardError.write(Data("pttbench: \(error)\npttd: \(stop.ending); log:\n\(ServerProcess.tail(of: server.logPath))\n".utf8))
            throw ExitCode(1)
        }
    }

    private func measureJoins(server: ServerProcess, group: EventLoopGroup, clients: inout [ControlClient]) async throws -> JoinReport {
        let admin = AdminClient(baseURL: server.runtime.adminURL, token: server.adminToken, timeout: .seconds(30))
        let user: AddUserResponse = try await admin.post("/api/users", body: AddUserRequest(name: "bench"))
        let _: ChannelSummary = try await admin.post("/api/channels", body: CreateChannelRequest(name: "bench"))
        let _: ChannelSummary = try await admin.post("/api/channels", body: CreateChannelRequest(name: "bench-seq"))
        let budget = setupTimeout ?? (60 + Double(listeners) * 0.1)
        let events = JoinEventCounter(channel: "bench-seq")

        // 1. Everyone at once, as the audio runs join.
        let cpuBefore = ProcStats.processCPUSeconds(pid: server.pid) ?? 0
        let start = ContinuousClock.now
        let members = try await joinAll(
            count: listeners, channel: "bench", user: user, server: server, group: group,
            deadline: start + .milliseconds(Int(budget * 1000)), budget: budget, events: events, clients: &clients
        ) { String(format: "member-%05d", $0) }
        var report = JoinReport(
            members: listeners, controlTLS: tls, connectParallelism: connectParallelism,
            parallelJoinSeconds: Self.seconds(ContinuousClock.now - start),
            parallelServerCPUSeconds: (ProcStats.processCPUSeconds(pid: server.pid) ?? 0) - cpuBefore)
        progress(String(format: "%d members joined in %.2f s (pttd CPU %.2f s)", listeners, report.parallelJoinSeconds,
                        report.parallelServerCPUSeconds))

        // Let pttd finish sending member-joined to everyone before the sequential phase.
        try await Task.sleep(for: .milliseconds(500))

        // 2. One at a time into a second channel: join #k makes pttd tell the k−1 members already there.
        var expectedEvents = 0
        var waitForEvents = true
        for (offset, (client, _)) in members.enumerated() {
            let index = offset + 1
            expectedEvents += index - 1
            let cpu0 = ProcStats.schedulerCPUSeconds(pid: server.pid) ?? 0
            let t0 = ContinuousClock.now
            let reply = try await client.request(.join(Join(channel: "bench-seq")), timeout: .seconds(30))
            let t1 = ContinuousClock.now
            guard case .joined = reply else { throw BenchError("sequential join #\(index) answered \(reply.type)") }
            if waitForEvents {
                let limit = ContinuousClock.now + .seconds(2)
                while events.count.load(ordering: .relaxed) < expectedEvents {
                    if ContinuousClock.now > limit {
                        report.eventWaitTimeouts += 1
                        waitForEvents = false
                        report.problems.append("join #\(index): not every member-joined arrived within 2 s; later joins timed to `joined` only")
                        break
                    }
                    await Task.yield()
                }
            }
            let t2 = ContinuousClock.now
            let cpu1 = ProcStats.schedulerCPUSeconds(pid: server.pid) ?? 0
            report.sequential.append(.init(index: index, joinedMs: Self.seconds(t1 - t0) * 1000,
                                           settledMs: Self.seconds(t2 - t0) * 1000, serverCPUMicroseconds: (cpu1 - cpu0) * 1e6))
            if index % 200 == 0 { progress("sequential joins: \(index) of \(listeners)") }
        }
        func window(_ range: ClosedRange<Int>) -> JoinReport.Window? {
            let joins = report.sequential.filter { range.contains($0.index) }
            guard !joins.isEmpty else { return nil }
            func median(_ values: [Double]) -> Double {
                let sorted = values.sorted()
                return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
            }
            return .init(first: range.lowerBound, last: range.upperBound, medianJoinedMs: median(joins.map(\.joinedMs)),
                         medianSettledMs: median(joins.map(\.settledMs)),
                         medianServerCPUMicroseconds: median(joins.map(\.serverCPUMicroseconds)))
        }
        if listeners >= 30 {
            report.early = window(6...15)
            report.late = window((listeners - 9)...listeners)
            if let early = report.early, let late = report.late {
                report.cpuRatio = late.medianServerCPUMicroseconds / max(early.medianServerCPUMicroseconds, 1e-3)
                report.settledRatio = late.medianSettledMs / max(early.medianSettledMs, 1e-6)
                report.joinedRatio = late.medianJoinedMs / max(early.medianJoinedMs, 1e-6)
            }
        } else {
            report.problems.append("fewer than 30 members: no early/late comparison")
        }
        report.serverPeakRSSMB = ProcStats.memoryKB(pid: server.pid, field: "VmHWM").map { Double($0) / 1024 }
        report.machine = BenchReport.Machine.current(serverCPU: noPin ? nil : serverCPU, benchCPU: noPin ? nil : benchCPU)
        report.method = """
            parallel: \(listeners) connects\(tls ? " with TLS handshakes" : "") + hello + join of channel "bench", \
            \(connectParallelism) at a time, wall clock and pttd utime+stime from /proc/PID/stat. Sequential: the same \
            connections join channel "bench-seq" one at a time; for join #k, pttd's CPU (sum of \
            /proc/PID/task/*/schedstat, ns) and the wall time from writing `join` until `joined` was read and every \
            one of the k−1 earlier members had read its member-joined; medians over k = 6…15 and k = N−9…N, ratio late/early.
            """
        return report
    }
}
#endif
