#if os(Linux)
import ArgumentParser
import Foundation
import Glibc

/// `pttbench matrix`: every figure of the current targets, back to back against the C reference relay, each
/// configuration `--repeats` times; one Markdown table of ratios with PASS/MISS, and every run's JSON in --out.
struct BenchMatrix: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "matrix",
        abstract: "Run the whole target table (C reference relay, pttd plain, pttd SRTP; joins over TLS) and print it.",
        discussion: """
            For each repeat and each size in --sizes: the C reference relay (compiled with cc -O2 from \
            --reference-source unless --reference-relay is given, pinned to --server-cpu, loaded with --external-relay), \
            pttd with --security none and with --security srtp, all with --flood. Then --rate-listeners × 50 packets/s: \
            the C relay and pttd with SRTP. Then `--join-only --tls --listeners --join-members`. Each run is a child \
            pttbench with --json; its output goes to DIR/NAME.json (stderr to DIR/NAME.stderr). At the end one \
            Markdown table (also DIR/matrix.md): ratios against the C relay of the same repeat, and PASS/MISS per target. \
            Targets are reported, never asserted: the exit status is 0 unless a run could not be made at all.
            """)

    @Option(name: .long, help: "Directory for the raw JSON of every run (made if missing).")
    var out: String

    @Option(name: .long, help: "The pttd executable (default: next to pttbench).")
    var pttd: String?

    // Options by concern (BenchMatrix+Options.swift), in the order `--help` lists them.
    @OptionGroup var reference: ReferenceRelayOptions
    @OptionGroup var plan: MatrixPlanOptions
    @OptionGroup var runs: MatrixRunOptions

    @Flag(
        name: .long,
        help:
            "Run nothing: print the table of the runs already in --out (with the same --sizes, --repeats, --rate-listeners, --join-members)."
    )
    var tableOnly = false

    func validate() throws {
        guard !plan.parsedSizes.isEmpty else {
            throw ValidationError("--sizes: comma-separated listener counts, 1...5000")
        }
        guard (1...10).contains(plan.repeats) else { throw ValidationError("--repeats must be 1...10") }
    }

    func run() async throws {
        signal(SIGPIPE, SIG_IGN)
        if tableOnly {
            print(
                MatrixResults.load(directory: out).markdown(
                    repeats: plan.repeats, sizes: plan.parsedSizes, rateListeners: plan.rateListeners,
                    joinMembers: plan.joinMembers))
            return
        }
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let relay = try reference.referenceRelay ?? compileReferenceRelay()
        let pttbench = PTTBench.siblingExecutable("pttbench")
        var common = [
            "--seconds", "\(runs.seconds)", "--wait-quiet", "\(runs.waitQuiet)", "--server-cpu", "\(runs.serverCPU)",
            "--bench-cpu", "\(runs.benchCPU)", "--json",
        ]
        if let pttd { common += ["--pttd", pttd] }

        var results = MatrixResults()
        let total = plan.runCount
        var step = 0
        let began = ContinuousClock.now
        func note(_ text: String) {
            let elapsed = PTTBench.seconds(ContinuousClock.now - began)
            FileHandle.standardError.write(Data((String(format: "matrix [%4.0f s] ", elapsed) + text + "\n").utf8))
        }
        func audio(_ name: String, _ arguments: [String], external: Bool) async throws {
            step += 1
            note("\(step)/\(total) \(name) …")
            let report: BenchReport? =
                try await external
                ? runAgainstReferenceRelay(relay, name: name, pttbench: pttbench, arguments: arguments + common)
                : runChild(pttbench, name: name, arguments: arguments + common)
            results.audio[name] = report
            if let report {
                note(
                    name
                        + String(
                            format:
                                ": %.0f delivered/s, loss %.3f %%, p99 %.2f ms, utime %.3f µs/delivered, max RSS sending %.1f MB",
                            report.deliveredPerSecond, report.lossPercent, report.latencyMs["p99"] ?? -1,
                            report.serverUserMicrosecondsPerDelivered ?? -1, report.serverMaxRSSWhileSendingMB ?? -1)
                        + (report.serverStop?.secondsAfterSIGTERM.map {
                            String(format: ", stopped %.3f s after SIGTERM", $0)
                        } ?? ""))
            } else {
                note("\(name): FAILED (see \(out)/\(name).stderr)")
            }
        }
        for r in 1...plan.repeats {
            for n in plan.parsedSizes {
                let flood = ["--flood", "--listeners", "\(n)"]
                try await audio("r\(r)-flood-c-\(n)", flood + ["--security", "none"], external: true)
                try await audio("r\(r)-flood-none-\(n)", flood + ["--security", "none"], external: false)
                try await audio("r\(r)-flood-srtp-\(n)", flood + ["--security", "srtp"], external: false)
            }
            if plan.rateListeners > 0 {
                let rate = ["--rate", "50", "--listeners", "\(plan.rateListeners)"]
                try await audio("r\(r)-rate-c-\(plan.rateListeners)", rate + ["--security", "none"], external: true)
                try await audio(
                    "r\(r)-rate-srtp-\(plan.rateListeners)", rate + ["--security", "srtp"], external: false)
            }
            if plan.joinMembers > 0 {
                step += 1
                let name = "r\(r)-join-tls-\(plan.joinMembers)"
                note("\(step)/\(total) \(name) …")
                var arguments = [
                    "--join-only", "--tls", "--listeners", "\(plan.joinMembers)", "--server-cpu", "\(runs.serverCPU)",
                    "--bench-cpu", "\(runs.benchCPU)", "--json",
                ]
                if let pttd { arguments += ["--pttd", pttd] }
                let report: JoinReport? = try await runChild(pttbench, name: name, arguments: arguments)
                results.joins[name] = report
                if let report {
                    note(
                        name
                            + String(
                                format:
                                    ": %.2f s wall (pttd CPU %.2f s); join cost late/early %.2f× (CPU %.0f → %.0f µs)",
                                report.parallelJoinSeconds, report.parallelServerCPUSeconds, report.cpuRatio ?? -1,
                                report.early?.medianServerCPUMicroseconds ?? -1,
                                report.late?.medianServerCPUMicroseconds ?? -1))
                } else {
                    note("\(name): FAILED (see \(out)/\(name).stderr)")
                }
            }
        }
        let table = results.markdown(
            repeats: plan.repeats, sizes: plan.parsedSizes, rateListeners: plan.rateListeners,
            joinMembers: plan.joinMembers)
        try Data(table.utf8).write(to: URL(fileURLWithPath: out + "/matrix.md"))
        print(table)
        note("done; raw JSON in \(out)")
    }

    /// Compiles the C reference relay with `cc -O2` into a temporary directory.
    private func compileReferenceRelay() throws -> String {
        guard FileManager.default.fileExists(atPath: reference.referenceSource) else {
            throw ValidationError(
                "no \(reference.referenceSource) (run from the package root, or pass --reference-source / --reference-relay)"
            )
        }
        var template = Array("/tmp/pttbench-relay.XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw BenchError("mkdtemp: \(String(cString: strerror(errno)))") }
        let binary = String(cString: made) + "/reference-relay"
        let compile = Process()
        compile.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        compile.arguments = ["cc", "-O2", "-o", binary, reference.referenceSource]
        try compile.run()
        compile.waitUntilExit()
        guard compile.terminationStatus == 0 else { throw BenchError("cc -O2 \(reference.referenceSource) failed") }
        return binary
    }

    /// Starts the C relay pinned to the server core, loads it with a child pttbench, stops it.
    private func runAgainstReferenceRelay(
        _ relay: String, name: String, pttbench: String, arguments: [String]
    ) async throws -> BenchReport? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["taskset", "-c", "\(runs.serverCPU)", relay, "\(reference.relayPort)"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try runWithDefaultSignalMask(process)
        defer {
            // The C relay keeps no state: SIGKILL, so nothing can keep it alive.
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
            }
        }
        try await Task.sleep(for: .milliseconds(300))
        guard process.isRunning else {
            throw BenchError("the C reference relay exited at start (port \(reference.relayPort) in use?)")
        }
        return try await runChild(
            pttbench, name: name,
            arguments: arguments + [
                "--external-relay", "\(reference.relayPort)", "--external-pid", "\(process.processIdentifier)",
            ])
    }

    /// Runs a child pttbench; its standard output (JSON) is kept in DIR/NAME.json and decoded, nil if it failed.
    private func runChild<Report: Decodable>(
        _ executable: String, name: String, arguments: [String]
    ) async throws -> Report? {
        let jsonPath = "\(out)/\(name).json"
        let errorPath = "\(out)/\(name).stderr"
        for path in [jsonPath, errorPath] { _ = FileManager.default.createFile(atPath: path, contents: nil) }
        let stdout = try FileHandle(forWritingTo: URL(fileURLWithPath: jsonPath))
        let stderr = try FileHandle(forWritingTo: URL(fileURLWithPath: errorPath))
        defer {
            try? stdout.close()
            try? stderr.close()
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = FileHandle.nullDevice
        try runWithDefaultSignalMask(process)
        while process.isRunning { try await Task.sleep(for: .milliseconds(100)) }
        guard process.terminationStatus == 0, let data = FileManager.default.contents(atPath: jsonPath) else {
            return nil
        }
        return try? JSONDecoder().decode(Report.self, from: data)
    }
}
#endif
