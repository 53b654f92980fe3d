#if os(Linux)
import ArgumentParser
import Foundation
import Glibc
import NIOCore
import NIOPosix
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

    /// 128: 1000 TLS joins took 3.3 s at 32, 2.8 s at 64, 2.2–2.6 s at 128 (pttd's core is the limit from 64 on),
    /// and 128 stays below pttd's 256 connections between accept and hello, so none waits near its hello deadline.
    @Option(name: .long, help: "Parallel connects while joining (at most 256, pttd's limit of connections between accept and hello).")
    var connectParallelism = 128

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

    // MARK: Helpers

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
