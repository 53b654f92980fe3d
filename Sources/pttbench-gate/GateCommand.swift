import ArgumentParser
import Foundation

/// `make bench-check`: counts heap allocations per relayed packet, per join and per floor request, in process, and
/// fails when one is above its committed threshold. Docs/BENCHMARKS.md, "The benchmark gate (issue 24)".
@main
struct GateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pttbench-gate",
        abstract: "Allocations per relayed packet, per join and per floor request, against committed thresholds.")

    @Option(help: "The thresholds file.")
    var thresholds = "fixtures/bench-thresholds.json"

    @Flag(help: "Write the figures measured now into the thresholds file (keeping each margin) instead of checking.")
    var update = false

    @Option(help: "The margin of a metric new to the file, with --update (0.1: 10 %).")
    var margin = 0.1

    @Option(help: "Members in the channel before the counted joins (the thresholds are for 100).")
    var joinChannelMembers = 100

    @Option(help: "Memberships in other channels for the join benchmark in a large directory.")
    var directoryMembers = 20_000

    func run() async throws {
        #if !DEBUG
        throw ValidationError("build pttbench-gate in debug: its thresholds and the plane's benchmarks are for it")
        #else
        guard AllocationMeter.available else {
            throw ValidationError("this build does not count allocations (a sanitizer brings its own malloc)")
        }
        try AllocationMeter.checkCounting()
        var measured: [GateMetric] = []
        for secure in [false, true] {
            measured.append(try await RelayPacketBench(secure: secure).run())
        }
        measured.append(try JoinBench(warmUp: joinChannelMembers).run())
        measured.append(try JoinBench(warmUp: 100, joins: 100, directoryMembers: directoryMembers).run())
        measured.append(try FloorBench().run())
        var file = try Thresholds.load(thresholds)
        if update {
            for metric in measured {
                file.metrics[metric.name] = Thresholds.Entry(
                    measured: (metric.value * 100).rounded() / 100,
                    margin: file.metrics[metric.name]?.margin ?? margin, operation: metric.operation)
            }
            try file.save(thresholds)
        }
        print("bench-check: heap allocations per operation (\(file.configuration) build), measured vs threshold")
        var failed: [String] = []
        for metric in measured {
            let verdict = file.check(metric)
            print(verdict.line)
            print(
                "    \(metric.operation); \(metric.operations) counted, \(Int(metric.bytesPerOperation)) bytes and "
                    + "\(Int(metric.microsecondsPerOperation)) µs each")
            if !verdict.passes { failed.append(metric.name) }
        }
        if update { print("bench-check: wrote \(thresholds)") }
        guard failed.isEmpty else {
            print("bench-check: FAILED: \(failed.joined(separator: ", ")) above the threshold in \(thresholds)")
            throw ExitCode.failure
        }
        print("bench-check: all \(measured.count) within their thresholds")
        #endif
    }
}
