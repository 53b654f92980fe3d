#if os(Linux)
import ArgumentParser
import Foundation
import Glibc
import NIOCore
import NIOPosix
import PTTKit
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
        subcommands: [BenchMatrix.self, KitWakeBench.self, KitPushMemoryBench.self, FloorLatencyBench.self])

    // Options by concern (PTTBench+Options.swift), in the order `--help` lists them.
    @OptionGroup var load: LoadOptions
    @OptionGroup var late: LateListenerOptions
    @OptionGroup var placement: PlacementOptions
    @OptionGroup var payload: PayloadOptions
    @OptionGroup var receiving: ReceiveOptions
    @OptionGroup var setup: SetupOptions
    @OptionGroup var external: ExternalRelayOptions
    @OptionGroup var daemon: DaemonOptions
    @OptionGroup var output: OutputOptions

    @OptionGroup(title: "Wakes") var wakeOptions: WakeBenchOptions

    @OptionGroup(title: "Joins") var joinOptions: JoinBenchOptions

    func validate() throws {
        guard (1...5000).contains(load.listeners) else { throw ValidationError("--listeners must be 1...5000") }
        guard ["srtp", "none"].contains(load.security) else { throw ValidationError("--security must be srtp or none") }
        guard (0.5...600).contains(load.seconds) else { throw ValidationError("--seconds must be 0.5...600") }
        guard load.flood || (0.1...1_000_000).contains(load.rate) else {
            throw ValidationError("--rate must be 0.1...1000000")
        }
        guard (load.window ?? 1) >= 1 else { throw ValidationError("--window must be at least 1") }
        guard receiving.verifyEvery >= 1 else { throw ValidationError("--verify-every must be at least 1") }
        guard (1...256).contains(setup.connectParallelism) else {
            throw ValidationError("--connect-parallelism must be 1...256")
        }
        guard (0...60).contains(daemon.stopUnderLoad) else { throw ValidationError("--stop-under-load must be 0...60") }
        guard (0...5000).contains(late.lateListeners) else {
            throw ValidationError("--late-listeners must be 0...5000")
        }
        if let mode = late.catchUpModeOption, !["off", "woken", "late-joiners"].contains(mode) {
            throw ValidationError("--catch-up-mode must be off, woken or late-joiners")
        }
        if let speed = late.catchUpSpeed, !(1.1...20).contains(speed) {
            throw ValidationError("--catch-up-speed must be 1.1...20")
        }
        if late.lateListeners > 0 {
            guard external.externalRelay == nil, !joinOptions.joinOnly, wakeOptions.wakes == nil else {
                throw ValidationError(
                    "--late-listeners needs the audio run (not --external-relay, --join-only, --wakes)")
            }
        }
        if late.windowStart != nil {
            guard late.lateAfter > 0, load.seconds > late.lateAfter else {
                throw ValidationError(
                    "--seconds (\(load.seconds)) must exceed --late-after (\(late.lateAfter)), which must be over 0")
            }
        }
    }

    func progress(_ text: @autoclosure () -> String) {
        if output.verbose { FileHandle.standardError.write(Data("pttbench: \(text())\n".utf8)) }
    }

    func run() async throws {
        installSignalHandlers()
        if !placement.noPin && !LinuxSys.pinProcess(toCPU: placement.benchCPU) {
            throw ValidationError("cannot pin pttbench to CPU \(placement.benchCPU) (see nproc; or --no-pin)")
        }
        let fileLimit = LinuxSys.raiseFileLimit()
        let neededFiles = 2 * (load.listeners + late.lateListeners) + 200
        guard fileLimit < 0 || fileLimit >= neededFiles else {
            throw ValidationError("open-file limit \(fileLimit) is below the \(neededFiles) this run needs (ulimit -n)")
        }
        if let wakes = wakeOptions.wakes { return try await runWakes(members: wakes, bursts: wakeOptions.bursts) }
        if joinOptions.joinOnly { return try await runJoins() }
        let payloads = try makePayloads()
        progress(
            "\(payloads.count) Opus packets of \(payloads.map(\.count).min()!)–\(payloads.map(\.count).max()!) bytes")
        if let externalRelay = external.externalRelay {
            var report = try await measureExternal(port: externalRelay, payloads: payloads)
            report.checkProblems()
            print(output.json ? report.json() : report.text())
            return
        }

        if daemon.nodes > 1 { return try await runCluster(payloads: payloads) }
        let server = try await ServerProcess.start(
            .init(
                executable: placement.executable, core: placement.pinnedServerCPU, security: load.security,
                maxTalkTimeMs: Int((load.seconds + 600) * 1000),
                maxConnections: max(10_000, load.listeners + late.lateListeners + 100),
                logLevel: daemon.serverLogLevel, tls: daemon.tls, catchUpMode: late.catchUpMode,
                catchUpSpeed: late.catchUpSpeed, cluster: daemon.cluster))
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
            if output.keep { report.dataDirectory = server.dataDirectory } else { server.removeDataDirectory() }
            print(output.json ? report.json() : report.text())
            if !report.problems.isEmpty && !output.json {
                FileHandle.standardError.write(
                    Data("pttbench: problems: \(report.problems.joined(separator: "; "))\n".utf8))
            }
        case .failure(let error):
            FileHandle.standardError.write(
                Data(
                    """
                    pttbench: \(error)
                    pttbench: pttd \(serverAlive ? "was running" : "had exited") (\(ending)); data kept in \(server.dataDirectory); last lines of pttd.log:
                    \(ServerProcess.tail(of: server.logPath))

                    """.utf8))
            throw ExitCode(1)
        }
    }

    // MARK: Helpers

    static func siblingExecutable(_ name: String) -> String {
        let own =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
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
