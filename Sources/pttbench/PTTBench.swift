#if os(Linux)
import ArgumentParser
import Foundation
import Glibc
import AudioFiles
import RTP
import NIOCore
import NIOPosix
import Opus
import PTTClient
import PTTProtocol

/// `pttbench`: starts `pttd`, joins N listeners and one talker to a channel, sends Opus at a fixed rate (or as
/// fast as delivery keeps up) and reports throughput, loss, added latency, server CPU and memory.
@main
struct PTTBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pttbench",
        abstract: "Load test for pttd's audio relay: one talker, N listeners, all on 127.0.0.1.",
        discussion: """
            pttbench starts its own pttd (pinned to --server-cpu with taskset) in a temporary data directory, pins \
            itself to --bench-cpu, joins N listeners and one talker to channel "bench" (one user, one device each), \
            waits until the relay has heard every listener, takes the floor and sends 20 ms Opus packets for \
            --seconds. Latency is the kernel's receive timestamp at a listener minus the time of the talker's send() \
            (matched by RTP timestamp). \
            Server CPU is pttd's utime+stime over the run; core busy is the whole core from /proc/stat (it also \
            counts softirq work the kernel does outside pttd's own time); utime alone is reported too (user-space \
            cost per delivered packet). At the end the talker sends again for --stop-under-load seconds and pttd is \
            sent SIGTERM while it is still relaying; the seconds to its exit are reported.

            --join-only measures joins instead of audio (see "Joins"); `pttbench matrix` runs the whole table of \
            the current targets (see `pttbench matrix --help`).
            """,
        subcommands: [BenchMatrix.self])

    @Option(name: .long, help: "Listeners (receiving members), 1...5000.")
    var listeners = 100

    @Option(name: .long, help: "Media protection: srtp or none.")
    var security = "srtp"

    @Option(name: .long, help: "Packets per second the talker sends (without --flood).")
    var rate = 50.0

    @Flag(name: .long, help: "Send as fast as delivery keeps up (a window of --window outstanding deliveries).")
    var flood = false

    @Option(name: .long, help: "Flood window: deliveries (packets × listeners) allowed in flight (default: the larger of 1024 and 4 × listeners).")
    var window: Int?

    @Option(name: .long, help: "Seconds of sending, 0.5...600.")
    var seconds = 10.0

    @Option(name: .long, help: "The pttd executable (default: next to pttbench).")
    var pttd: String?

    @Option(name: .long, help: "Core to pin pttd to.")
    var serverCPU = 0

    @Option(name: .long, help: "Core to pin pttbench to.")
    var benchCPU = 1

    @Flag(name: .long, help: "Pin nothing.")
    var noPin = false

    @Option(name: .long, help: "Ogg Opus file whose packets the talker sends in a loop (default: 20 ms packets encoded here from noise at --bitrate).")
    var opus: String?

    @Option(name: .long, help: "Bitrate of the generated Opus packets, bits/s.")
    var bitrate = 24_000

    @Option(name: .long, help: "Decrypt and compare every n-th delivered packet (and each listener's first); 1 checks all.")
    var verifyEvery = 50

    @Flag(name: .long, help: "Take a packet's arrival time when pttbench reads it, not the kernel's receive timestamp (SO_TIMESTAMPNS).")
    var userTimestamps = false

    @Option(name: .long, help: "Receive buffer per listener socket, bytes (default: 1 MiB up to 100 listeners, 256 KiB above).")
    var receiveBuffer: Int?

    @Option(name: .long, help: "Parallel connects while joining.")
    var connectParallelism = 32

    @Option(name: .long, help: "Seconds allowed for joining everyone and for the relay to hear every listener.")
    var setupTimeout: Double?

    @Option(name: .long, help: "Before sending, wait up to this many seconds for both cores to be nearly idle (other processes).")
    var waitQuiet = 0.0

    @Option(name: .long, help: "Busy percentage of a core (over 1 s, before sending) that counts as quiet.")
    var quietThreshold = 5.0

    @Option(name: .long, help: ArgumentHelp("Load another relay on 127.0.0.1:PORT instead of starting pttd (plain RTP; see Sources/pttbench/ReferenceRelay).", valueName: "port"))
    var externalRelay: Int?

    @Option(name: .long, help: "With --external-relay: that relay's pid, for its CPU and memory figures.")
    var externalPid: Int32?

    @Flag(name: .long, help: "Start pttd with TLS (a self-signed certificate) and connect every control client over TLS, pinned to the fingerprint in runtime.json (a temporary known_hosts file). Default: --no-tls, as earlier figures.")
    var tls = false

    @Option(name: .long, help: "After the run, send again (same mode) for this many seconds, then SIGTERM pttd while it relays and time its exit. 0: stop it after the run, idle.")
    var stopUnderLoad = 1.0

    @Option(name: .long, help: "pttd's log level.")
    var serverLogLevel = "warning"

    @Flag(name: .long, help: "Print the result as JSON.")
    var json = false

    @Flag(name: .long, help: "Keep pttd's data directory (its log is pttd.log).")
    var keep = false

    @Flag(name: .long, help: "Progress messages on standard error.")
    var verbose = false

    @OptionGroup(title: "Wakes") var wakeOptions: WakeBenchOptions

    @OptionGroup(title: "Joins") var joinOptions: JoinBenchOptions

    func validate() throws {
        guard (1...5000).contains(listeners) else { throw ValidationError("--listeners must be 1...5000") }
        guard ["srtp", "none"].contains(security) else { throw ValidationError("--security must be srtp or none") }
        guard (0.5...600).contains(seconds) else { throw ValidationError("--seconds must be 0.5...600") }
        guard flood || (0.1...1_000_000).contains(rate) else { throw ValidationError("--rate must be 0.1...1000000") }
        guard (window ?? 1) >= 1 else { throw ValidationError("--window must be at least 1") }
        guard verifyEvery >= 1 else { throw ValidationError("--verify-every must be at least 1") }
        guard (1...256).contains(connectParallelism) else { throw ValidationError("--connect-parallelism must be 1...256") }
        guard (0...60).contains(stopUnderLoad) else { throw ValidationError("--stop-under-load must be 0...60") }
    }

    var floodWindow: Int { window ?? max(1024, 4 * listeners) }

    func progress(_ text: @autoclosure () -> String) {
        if verbose { FileHandle.standardError.write(Data("pttbench: \(text())\n".utf8)) }
    }

    func run() async throws {
        installSignalHandlers()
        if !noPin && !LinuxSys.pinProcess(toCPU: benchCPU) {
            throw ValidationError("cannot pin pttbench to CPU \(benchCPU) (see nproc; or --no-pin)")
        }
        let fileLimit = LinuxSys.raiseFileLimit()
        let neededFiles = 2 * listeners + 200
        guard fileLimit < 0 || fileLimit >= neededFiles else {
            throw ValidationError("open-file limit \(fileLimit) is below the \(neededFiles) this run needs (ulimit -n)")
        }
        if let wakes = wakeOptions.wakes { return try await runWakes(members: wakes, bursts: wakeOptions.bursts) }
        if joinOptions.joinOnly { return try await runJoins() }
        let payloads = try makePayloads()
        progress("\(payloads.count) Opus packets of \(payloads.map(\.count).min()!)–\(payloads.map(\.count).max()!) bytes")
        if let externalRelay {
            var report = try await measureExternal(port: externalRelay, payloads: payloads)
            report.checkProblems()
            print(json ? report.json() : report.text())
            return
        }

        let server = try await ServerProcess.start(.init(
            executable: pttd ?? Self.siblingExecutable("pttd"), core: noPin ? nil : serverCPU, security: security,
            maxTalkTimeMs: Int((seconds + 600) * 1000), maxConnections: max(10_000, listeners + 100), logLevel: serverLogLevel,
            tls: tls))
        progress("pttd pid \(server.pid), data \(server.dataDirectory)")
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        var outcome: Result<BenchReport, Error>
        var clients: [ControlClient] = []
        do {
            let report = try await measure(server: server, group: group, payloads: payloads, clients: &clients)
            outcome = .success(report)
        } catch {
            outcome = .failure(error)
        }
        let serverAlive = server.isRunning || server.stopOutcome != nil
        let stop = await server.stop()
        let ending = stop.ending
        for client in clients { await client.close() }
        try? await group.shutdownGracefully()

        switch outcome {
        case .success(var report):
            if report.serverStop == nil {
                report.serverEnding = ending
                report.serverStop = stop
            }
            if !serverAlive { report.problems.append("pttd was not running at the end of the run") }
            if keep { report.dataDirectory = server.dataDirectory } else { server.removeDataDirectory() }
            print(json ? report.json() : report.text())
            if !report.problems.isEmpty && !json {
                FileHandle.standardError.write(Data("pttbench: problems: \(report.problems.joined(separator: "; "))\n".utf8))
            }
        case .failure(let error):
            FileHandle.standardError.write(Data("""
                pttbench: \(error)
                pttbench: pttd \(serverAlive ? "was running" : "had exited") (\(ending)); data kept in \(server.dataDirectory); last lines of pttd.log:
                \(ServerProcess.tail(of: server.logPath))

                """.utf8))
            throw ExitCode(1)
        }
    }

    // MARK: The run

    private func measure(server: ServerProcess, group: EventLoopGroup, payloads: [[UInt8]],
                         clients: inout [ControlClient]) async throws -> BenchReport {
        guard let mediaPort = server.runtime.mediaPort else { throw BenchError("runtime.json has no mediaPort") }
        let admin = AdminClient(baseURL: server.runtime.adminURL, token: server.adminToken, timeout: .seconds(30))
        let user: AddUserResponse = try await admin.post("/api/users", body: AddUserRequest(name: "bench"))
        let _: ChannelSummary = try await admin.post("/api/channels", body: CreateChannelRequest(name: "bench"))
        let setupBudget = setupTimeout ?? (60 + Double(listeners) * 0.1)
        let setupDeadline = ContinuousClock.now + .milliseconds(Int(setupBudget * 1000))

        // Join: N listeners and the talker (last), connectParallelism at a time.
        let setupStart = ContinuousClock.now
        let members = try await joinAll(
            count: listeners + 1, channel: "bench", user: user, server: server, group: group, deadline: setupDeadline,
            budget: setupBudget, clients: &clients) { $0 == listeners ? "talker" : String(format: "listener-%05d", $0) }
        let joinSeconds = Self.seconds(ContinuousClock.now - setupStart)
        let serverJoinCPU = ProcStats.processCPUSeconds(pid: server.pid)
        progress("\(listeners + 1) members joined in \(String(format: "%.1f", joinSeconds)) s")
        let joined = members.map(\.1)
        let talkerClient = members[listeners].0
        func media(_ joined: Joined) throws -> MemberMedia {
            var key: [UInt8] = []
            if security == "srtp" {
                guard joined.media.security == "srtp", let text = joined.media.key, let data = Data(base64Encoded: text), data.count == 30 else {
                    throw BenchError("joined has media security \(joined.media.security) and no usable key; expected srtp")
                }
                key = Array(data)
            } else if joined.media.security != "none" {
                throw BenchError("joined has media security \(joined.media.security); expected none")
            }
            return MemberMedia(ssrc: joined.media.ssrc, listenSSRC: joined.media.listenSSRC, key: key)
        }
        guard joined[0].media.port == mediaPort else { throw BenchError("joined names media port \(joined[0].media.port), runtime.json \(mediaPort)") }

        let receiveBuffer = self.receiveBuffer ?? (listeners <= 100 ? 1 << 20 : 256 << 10)
        let maxPackets = flood ? Int(min(seconds * 400_000, 20_000_000)) : Int((seconds * rate).rounded()) + 1
        let engine = try LoadEngine(.init(
            relayPort: mediaPort, secure: security == "srtp", listeners: try joined.prefix(listeners).map(media),
            talker: try media(joined[listeners]), payloads: payloads,
            mode: flood ? .flood(window: floodWindow) : .rate(rate), seconds: seconds, maxPackets: maxPackets,
            verifyEvery: verifyEvery, receiveBuffer: receiveBuffer, kernelTimestamps: !userTimestamps, serverPID: server.pid,
            serverCore: noPin ? -1 : serverCPU, benchCore: noPin ? -1 : benchCPU, lingerAfterRun: stopUnderLoad > 0))
        engine.start()
        defer { engine.command.store(2, ordering: .releasing) }

        // Wait until the relay knows every listener's address.
        let reachStart = ContinuousClock.now
        var reachable = 0
        let listenerSSRCs = Set(joined.prefix(listeners).map(\.media.ssrc))
        while true {
            let detail: ChannelDetail = try await admin.get("/api/channels/bench")
            reachable = detail.members.filter { listenerSSRCs.contains($0.ssrc) && $0.audioReachable }.count
            if reachable == listeners { break }
            if ContinuousClock.now > setupDeadline {
                throw BenchError("the relay heard only \(reachable) of \(listeners) listeners within \(setupBudget) s")
            }
            if engine.finished.load(ordering: .acquiring) { throw BenchError("load engine stopped: \(engine.result.failure ?? "?")") }
            try await Task.sleep(for: .milliseconds(200))
        }
        let reachSeconds = Self.seconds(ContinuousClock.now - reachStart)
        progress("relay heard all \(listeners) listeners after \(String(format: "%.1f", reachSeconds)) s")
        let rssBefore = ProcStats.memoryKB(pid: server.pid, field: "VmRSS")
        let metricsBefore = RelayCounters(try await admin.getText("/metrics"))
        let socketPorts = Set(engine.listenerPorts + [mediaPort])
        let dropsBefore = ProcStats.udpDrops(ports: socketPorts)

        // Other processes on these cores distort every figure: measure them (1 s), and wait for quiet if asked.
        let quietDeadline = ContinuousClock.now + .milliseconds(Int(waitQuiet * 1000))
        var background = try await Self.coreBusy(serverCore: noPin ? -1 : serverCPU, benchCore: noPin ? -1 : benchCPU)
        while max(background.server, background.bench) > quietThreshold, ContinuousClock.now < quietDeadline {
            progress(String(format: "waiting for quiet: cores %.1f %% / %.1f %% busy", background.server, background.bench))
            background = try await Self.coreBusy(serverCore: noPin ? -1 : serverCPU, benchCore: noPin ? -1 : benchCPU)
        }

        let answer = try await talkerClient.request(.floorRequest(FloorCommand(channel: "bench")))
        guard case .floorGranted = answer else { throw BenchError("floor request answered \(answer.type)") }
        try await Task.sleep(for: .milliseconds(200))
        progress(flood ? "flooding for \(seconds) s" : "sending \(rate) packets/s for \(seconds) s")

        engine.command.store(1, ordering: .releasing)
        let runDeadline = ContinuousClock.now + .milliseconds(Int((seconds + 30) * 1000))
        var maxRSSWhileSending = 0
        while !engine.finished.load(ordering: .acquiring) {
            if ContinuousClock.now > runDeadline {
                engine.command.store(2, ordering: .releasing)
                throw BenchError("the run did not finish within \(seconds + 30) s")
            }
            if !server.isRunning { break }
            maxRSSWhileSending = max(maxRSSWhileSending, ProcStats.memoryKB(pid: server.pid, field: "VmRSS") ?? 0)
            try await Task.sleep(for: .milliseconds(50))
        }
        let peakAtEnd = ProcStats.memoryKB(pid: server.pid, field: "VmHWM")
        guard server.isRunning else {
            engine.command.store(2, ordering: .releasing)
            throw BenchError("pttd died during the run (exit status \(server.process.terminationStatus))")
        }
        while !engine.finished.load(ordering: .acquiring) { try await Task.sleep(for: .milliseconds(10)) }
        let result = engine.result
        if let failure = result.failure { throw BenchError("load engine: \(failure)") }

        let metricsAfter = RelayCounters(try await admin.getText("/metrics"))
        let dropsAfter = ProcStats.udpDrops(ports: socketPorts)
        let detail: ChannelDetail = try await admin.get("/api/channels/bench")
        // Stopping under load needs the floor: the talker keeps it.
        if stopUnderLoad == 0 { talkerClient.send(.floorRelease(FloorCommand(channel: "bench"))) }

        var report = BenchReport(
            listeners: listeners, security: security, mode: flood ? "flood" : "rate", result: result,
            offeredInputRate: flood ? nil : rate, floodWindow: flood ? floodWindow : nil,
            payloadBytes: payloads.map(\.count).reduce(0, +) / payloads.count)
        report.backgroundServerCoreBusyPercent = background.server
        report.backgroundBenchCoreBusyPercent = background.bench
        report.arrivalClock = userTimestamps ? "read by pttbench" : "kernel receive timestamp"
        report.setupJoinSeconds = joinSeconds
        report.serverCPUSecondsUntilJoined = serverJoinCPU
        report.setupReachSeconds = reachSeconds
        report.serverMaxRSSMB = ProcStats.memoryKB(pid: server.pid, field: "VmHWM").map { Double($0) / 1024 }
        report.serverMaxRSSWhileSendingMB = maxRSSWhileSending > 0 ? Double(maxRSSWhileSending) / 1024 : nil
        report.serverPeakRSSAtEndOfSendingMB = peakAtEnd.map { Double($0) / 1024 }
        report.controlTLS = tls
        report.serverRSSMB = ProcStats.memoryKB(pid: server.pid, field: "VmRSS").map { Double($0) / 1024 }
        report.serverRSSBeforeRunMB = rssBefore.map { Double($0) / 1024 }
        report.serverThreads = ProcStats.threadCount(pid: server.pid)
        report.relayCounters = metricsAfter.minus(metricsBefore)
        report.relaySocketDrops = (dropsAfter[mediaPort] ?? 0) - (dropsBefore[mediaPort] ?? 0)
        report.listenerSocketDrops = engine.listenerPorts.reduce(0) { $0 + (dropsAfter[$1] ?? 0) - (dropsBefore[$1] ?? 0) }
        report.floorAtEnd = detail.floor
        report.machine = BenchReport.Machine.current(serverCPU: noPin ? nil : serverCPU, benchCPU: noPin ? nil : benchCPU)

        if stopUnderLoad > 0 {
            // Send again and stop pttd while it relays: shutdown must not wait for the load to end.
            engine.command.store(3, ordering: .releasing)
            let loadEnd = ContinuousClock.now + .milliseconds(Int(stopUnderLoad * 1000))
            while ContinuousClock.now < loadEnd, server.isRunning {
                try await Task.sleep(for: .milliseconds(50))
            }
            progress("SIGTERM to pttd while sending")
            let sentBefore = engine.tailPacketsSent.load(ordering: .relaxed)
            var stop = await server.stop(underLoad: true)
            stop.packetsSentBeforeSIGTERM = sentBefore
            report.serverStop = stop
            report.serverEnding = stop.ending + " (\(sentBefore) packets sent in the \(stopUnderLoad) s before SIGTERM)"
        }
        report.checkProblems()
        return report
    }

    // MARK: Helpers

    func makePayloads() throws -> [[UInt8]] {
        if let opus {
            let (_, packets) = try OggOpusReader.readFile(path: opus)
            let payloads = packets.map { $0.data }.filter { !$0.isEmpty }
            guard !payloads.isEmpty else { throw ValidationError("\(opus) has no Opus packets") }
            return payloads
        }
        // 50 packets (1 s) of 20 ms mono Opus from pseudo-random noise with a moving tone: every packet differs,
        // so a mismatched index is caught when payloads are compared.
        let encoder = try OpusEncoder(sampleRate: 48_000, channels: 1, application: .voip)
        try encoder.setBitrate(.bitsPerSecond(Int32(bitrate)))
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        var packets: [[UInt8]] = []
        var phase = 0.0
        for frame in 0..<60 {
            var pcm = [Int16](repeating: 0, count: 960)
            for index in 0..<960 {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                let noise = Double(Int16(truncatingIfNeeded: state >> 48)) * 0.15
                phase += 2 * Double.pi * (300 + 20 * Double(frame)) / 48_000
                pcm[index] = Int16(clamping: Int(noise + 8_000 * sin(phase)))
            }
            let packet = try encoder.encode(pcm, frameSize: 960)
            if frame >= 10 { packets.append(packet) }   // skip the encoder's first frames
        }
        return packets
    }

    /// Busy percentage of the two cores over one second (nothing of pttbench's own is running then).
    static func coreBusy(serverCore: Int, benchCore: Int) async throws -> (server: Double, bench: Double) {
        let before = CPUSnapshot.take(serverPID: 0, serverCore: serverCore, benchCore: benchCore)
        try await Task.sleep(for: .seconds(1))
        let after = CPUSnapshot.take(serverPID: 0, serverCore: serverCore, benchCore: benchCore)
        func percent(_ a: (busy: Double, total: Double), _ b: (busy: Double, total: Double)) -> Double {
            b.total > a.total ? 100 * (b.busy - a.busy) / (b.total - a.total) : 0
        }
        return (percent(before.serverCore, after.serverCore), percent(before.benchCore, after.benchCore))
    }

    static func siblingExecutable(_ name: String) -> String {
        let own = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: own).deletingLastPathComponent().appendingPathComponent(name).path
    }

    static func seconds(_ duration: Duration) -> Double {
        let (s, attoseconds) = duration.components
        return Double(s) + Double(attoseconds) / 1e18
    }
}
#else
@main
struct PTTBench {
    static func main() {
        print("pttbench runs on Linux only (epoll, /proc, taskset).")
    }
}
#endif
