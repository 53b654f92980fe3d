#if os(Linux)
import ArgumentParser
import Foundation
import NIOCore
import NIOPosix
import PTTAdmin
import PTTKit
import PTTProtocol

/// `pttbench --join-only`: what joining a channel costs pttd, all at once and one at a time.
struct JoinBenchOptions: ParsableArguments {
    @Flag(
        name: .long,
        help: """
            Measure joins instead of audio: --listeners light members (pre-encoded frames, member-joined counted \
            without decoding) join channel "bench" (--connect-parallelism at a time; total wall seconds, pttd CPU as \
            utime+stime and utime, pttbench's own CPU), then the same connections join a second channel one at a time, \
            and the cost of join #k (pttd CPU and wall time from the join request until every earlier member told of \
            joins has its member-joined) is compared at k = 6…15 and k = N-9…N (medians). Use with --tls for the TLS figure.
            """)
    var joinOnly = false

    @Flag(
        name: .long,
        help: """
            With --join-only: members join with "memberEvents": true, so pttd tells every member of every later join \
            (the N²/2 member-joined of a channel filling up: the worst case). Default: the field is left out and pttd \
            decides (only members of channels up to its memberEventsUpTo are told); the events expected per join follow \
            what each member's `joined` says.
            """)
    var memberEvents = false
}

extension PTTBench {
    func runJoins() async throws {
        let server = try await ServerProcess.start(
            .init(
                executable: placement.executable, core: placement.pinnedServerCPU, security: load.security,
                maxTalkTimeMs: 600_000, maxConnections: max(10_000, load.listeners + 100),
                logLevel: daemon.serverLogLevel, tls: daemon.tls, cluster: daemon.cluster))
        progress("pttd pid \(server.pid), data \(server.dataDirectory)")
        // One event loop for every member: pttbench has one core.
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        var members: [JoinMember] = []
        let outcome: Result<JoinReport, Error>
        do {
            outcome = .success(try await measureJoins(server: server, eventLoop: group.next(), members: &members))
        } catch {
            outcome = .failure(error)
        }
        let stop = await server.stop()
        for member in members { await member.close() }
        try? await group.shutdownGracefully()
        switch outcome {
        case .success(var report):
            report.serverStop = stop
            if stop.killed { report.problems.append("pttd did not stop within 5 s of SIGTERM and was killed") }
            if !output.keep { server.removeDataDirectory() }
            print(output.json ? report.json() : report.text())
        case .failure(let error):
            FileHandle.standardError.write(
                Data("pttbench: \(error)\npttd: \(stop.ending); log:\n\(ServerProcess.tail(of: server.logPath))\n".utf8)
            )
            throw ExitCode(1)
        }
    }

    private func measureJoins(
        server: ServerProcess, eventLoop: EventLoop, members: inout [JoinMember]
    ) async throws -> JoinReport {
        let admin = AdminClient(baseURL: server.runtime.adminURL, token: server.adminToken, timeout: .seconds(30))
        let user: AddUserResponse = try await admin.post("/api/users", body: AddUserRequest(name: "bench"))
        let _: ChannelSummary = try await admin.post("/api/channels", body: CreateChannelRequest(name: "bench"))
        let sequentialChannel: ChannelSummary = try await admin.post(
            "/api/channels", body: CreateChannelRequest(name: "bench-seq"))
        let budget = setup.setupBudget(listeners: load.listeners)
        let tally = MemberJoinedTally(eventLoop: eventLoop, channelID: sequentialChannel.id)
        let security = try joinMemberSecurity(server: server)
        // Every frame a member sends is encoded before the clock starts: a hello per device, one join for all.
        let hellos = try (0..<load.listeners).map { index in
            try ControlFrame(
                .hello(
                    Hello(
                        user: "bench", secret: user.secret, device: String(format: "member-%05d", index),
                        client: "pttbench"))
            ).bytes
        }
        let askEvents: Bool? = joinOptions.memberEvents ? true : nil
        let join = try ControlFrame(ControlMessage.join(Join(channel: "bench", memberEvents: askEvents)).withID(1))
            .bytes

        // 1. Everyone at once, as the audio runs join.
        let server0 = ProcStats.processCPUTimes(pid: server.pid) ?? (0, 0)
        let bench0 = ProcStats.ownCPUTimes()
        let start = ContinuousClock.now
        try await connectAndJoin(
            hellos: hellos, join: join, security: security, server: server, tally: tally,
            deadline: start + .milliseconds(Int(budget * 1000)), budget: budget, members: &members)
        let wall = Self.seconds(ContinuousClock.now - start)
        let server1 = ProcStats.processCPUTimes(pid: server.pid) ?? (0, 0)
        let bench1 = ProcStats.ownCPUTimes()
        var report = JoinReport(
            members: load.listeners, controlTLS: daemon.tls, connectParallelism: setup.connectParallelism,
            parallelJoinSeconds: wall,
            parallelServerCPUSeconds: (server1.user + server1.system) - (server0.user + server0.system))
        report.memberEventsAsked = askEvents
        report.parallelServerUserCPUSeconds = server1.user - server0.user
        report.parallelBenchUserCPUSeconds = bench1.user - bench0.user
        report.parallelBenchSystemCPUSeconds = bench1.system - bench0.system
        report.parallelBenchCPUSeconds = (bench1.user + bench1.system) - (bench0.user + bench0.system)
        progress(
            String(
                format: "%d members joined in %.2f s (pttd CPU %.2f s, utime %.2f s; pttbench CPU %.2f s)",
                load.listeners,
                wall, report.parallelServerCPUSeconds, report.parallelServerUserCPUSeconds ?? 0,
                report.parallelBenchCPUSeconds ?? 0))

        // Let pttd finish sending member-joined to everyone before the sequential phase.
        try await Task.sleep(for: .milliseconds(500))

        // 2. One at a time into a second channel: join #k makes pttd tell the k−1 members already there.
        try await joinOneByOne(members: members, server: server, tally: tally, askEvents: askEvents, report: &report)
        report.serverPeakRSSMB = ProcStats.memoryKB(pid: server.pid, field: "VmHWM").map { Double($0) / 1024 }
        report.machine = BenchReport.Machine.current(
            serverCPU: placement.pinnedServerCPU, benchCPU: placement.pinnedBenchCPU)
        let handshakes =
            daemon.tls ? " with TLS handshakes (pttd's certificate pinned to runtime.json's fingerprint)" : ""
        let events = askEvents == true ? "true in every join" : "left out, pttd decides"
        report.method = """
            parallel: \(load.listeners) connects\(handshakes) + hello + welcome + join of channel "bench", \
            \(setup.connectParallelism) at a time, wall clock; pttd utime+stime and utime alone from /proc/PID/stat (10 ms \
            ticks), pttbench's own user+sys from getrusage. Members are light clients (one event loop, pre-encoded \
            frames; member-joined counted from the frame's bytes, only welcome/joined/error/heartbeat decoded; \
            memberEvents \(events)). Sequential: the same connections join channel "bench-seq" one at a time; for \
            join #k, pttd's CPU (sum of /proc/PID/task/*/schedstat, ns) and the wall time from writing `join` until \
            `joined` was read and every earlier member that pttd tells of joins (as its `joined` said) had read its \
            member-joined (times taken on the event loop as the frames are read); pttd's utime per join from \
            /proc/PID/stat in 10 ms ticks, so it is given per window as the window's sum / joins (±10 ms / 10 joins), \
            not as a median. Medians over k = 6…15 and k = N−9…N, ratio late/early.
            """
        return report
    }

    /// TLS pinned to the fingerprint pttd wrote to runtime.json, or plain TCP without --tls.
    private func joinMemberSecurity(server: ServerProcess) throws -> JoinMemberSecurity {
        guard daemon.tls else { return .plain }
        guard server.runtime.tls, let fingerprint = server.runtime.fingerprint else {
            throw BenchError("pttd was started with TLS but runtime.json has no fingerprint")
        }
        return try .pinned(to: fingerprint)
    }

    /// Connects a member per hello frame and joins each with `join`, connectParallelism at a time; `members` gets each
    /// one as soon as it has joined (so the caller closes them whatever happens), and is in index order at the end.
    private func connectAndJoin(
        hellos: [ByteBuffer], join: ByteBuffer, security: JoinMemberSecurity, server: ServerProcess,
        tally: MemberJoinedTally, deadline: ContinuousClock.Instant, budget: Double,
        members: inout [JoinMember]
    ) async throws {
        let address = try SocketAddress(ipAddress: "127.0.0.1", port: server.runtime.controlPort)
        let joined = try await connectInParallel(
            hellos.count, parallelism: setup.connectParallelism, deadline: deadline,
            overrun: "joining took longer than \(budget) s"
        ) { index in
            let member = try await JoinMember.connect(
                to: address, security: security, hello: hellos[index], tally: tally, timeout: .seconds(30))
            do {
                _ = try await member.join(join, re: 1, timeout: .seconds(30)).get()
            } catch {
                await member.close()
                throw BenchError("member \(index): \(error)")
            }
            return member
        } arrived: { member in
            members.append(member)
        }
        members = joined
    }
}
#endif
