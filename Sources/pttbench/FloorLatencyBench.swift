#if os(Linux)
import ArgumentParser
import Foundation

/// The five runs of issue 24's "Measure": floor request → `floor-granted` with and without load beside it.
enum FloorLatencyScenario: String, CaseIterable, ExpressibleByArgument {
    case quiet, joins, recording
    case postgresStop = "postgres-stop"
    case churn
    /// Not a load beside the floor: an emergency declared in a channel of `--members` (issue 25).
    case emergency

    /// The load's length when `--load-seconds` is not given: the storm's spread, the talking, the stop, the churn.
    var defaultLoadSeconds: Double {
        switch self {
        case .quiet: 0
        case .joins: 1
        case .recording: 10
        case .postgresStop: 5
        case .churn: 20
        case .emergency: 0
        }
    }

    /// Seconds after the measuring starts that the load starts (the stop: 1 s, as the issue says).
    var loadOffset: Double { self == .postgresStop ? 1 : 0.5 }
}

/// `pttbench floor-latency`: how long pttd takes to grant an idle floor, quiet and beside other load.
struct FloorLatencyBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "floor-latency",
        abstract: "Floor request → floor-granted latency over TLS on loopback, quiet and under load (issue 24).",
        discussion: """
            Each run starts its own pttd (TLS with its self-signed certificate, pinned from runtime.json; 127.0.0.1, \
            ports 0 read back; not pinned to a core). A measuring member and a listener join channel "floor"; the \
            measuring member requests the floor, waits for floor-granted, releases, waits for floor-released, pauses \
            --pause-ms, and repeats. Each request → grant is timed on the event loop (write to read) into a histogram. \
            Load scenarios run beside it on other channels, starting 0.5 s in: joins (--members, default 1000, \
            welcomed beforehand, join evenly over --load-seconds, default 1), recording (a PTTKit talker sends 50 \
            Opus packets/s in 2 s bursts to a recorded channel for 10 s), postgres-stop (pttd a cluster node of one \
            on a private PostgreSQL; 1 s in, the backend of the node's storage connection (--stop-backends all: also \
            its cluster connection's) is SIGSTOPped for 5 s, then SIGCONTed; 50 members held with 1 s \
            heartbeats, 10 joins/s throughout; afterwards every member must still be connected and every join answered \
            `joined` must be in the database), churn (200 clients join and leave another channel as fast as answered \
            for 20 s), emergency (issue 25: channel "floor" has --members members, default 1000; before each cycle \
            one of them takes the floor and holds it --held-ms (200: its floor-taken has reached every member), and a \
            user with the emergency right declares an emergency there; the time from its `emergency` to its \
            floor-granted is the sample, then it clears and releases). In a load scenario measuring stops 0.5 s \
            after the load ends (or after --requests cycles); \
            "during load" counts the requests written inside the load's window; --time-limit bounds a whole run. \
            (--seconds is pttbench's own audio-run option, not this command's.)
            """)

    @Option(name: .long, help: "quiet, joins, recording, postgres-stop, churn, emergency, or all.")
    var scenario = "all"

    @Option(name: .long, help: "Runs of each scenario, 1...20.")
    var runs = 1

    @Option(name: .long, help: "Floor request/release cycles per run, at most, 1...100000.")
    var requests = 1_000

    // pttbench's own groups, shared with it (an option the parent defines is parsed into the parent's group, so the
    // subcommand reads it from the same group): --pttd (placement; nothing is pinned here), --json and --keep
    // (output), --server-log-level (daemon).
    @OptionGroup var placement: PlacementOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup(visibility: .hidden) var daemon: DaemonOptions

    @Option(name: .long, help: "Seconds a run may take at most (the measuring stops then), 5...1800.")
    var timeLimit = 120.0

    @Option(name: .long, help: "The load's length in seconds (default per scenario: 1, 10, 5, 20), 0.1...600.")
    var loadSeconds: Double?

    @Option(
        name: .long, help: "Members of the load (joins 1000, postgres-stop 50, churn 200, emergency 1000), 1...5000.")
    var members: Int?

    @Option(name: .customLong("pause-ms"), help: "Milliseconds between a release's answer and the next request.")
    var pauseMilliseconds = 20

    @Option(
        name: .customLong("held-ms"),
        help: "emergency: how long the holder has held the floor when the emergency comes, 0...5000 milliseconds.")
    var heldMilliseconds = 200

    @Option(name: .long, help: "postgres-stop: stop the storage connection's backend (store) or all the node's (all).")
    var stopBackends = "store"

    var executable: String { placement.executable }
    var json: Bool { output.json }
    var keep: Bool { output.keep }
    var serverLogLevel: String { daemon.serverLogLevel }
    /// The run's bound, seconds.
    var seconds: Double { timeLimit }

    var scenarios: [FloorLatencyScenario] {
        scenario == "all" ? FloorLatencyScenario.allCases : [FloorLatencyScenario(rawValue: scenario)!]
    }

    func validate() throws {
        guard scenario == "all" || FloorLatencyScenario(rawValue: scenario) != nil else {
            throw ValidationError("--scenario must be quiet, joins, recording, postgres-stop, churn, emergency or all")
        }
        guard (1...20).contains(runs) else { throw ValidationError("--runs must be 1...20") }
        guard (1...100_000).contains(requests) else { throw ValidationError("--requests must be 1...100000") }
        guard (5...1800).contains(timeLimit) else { throw ValidationError("--time-limit must be 5...1800") }
        if let loadSeconds, !(0.1...600).contains(loadSeconds) {
            throw ValidationError("--load-seconds must be 0.1...600")
        }
        if let members, !(1...5000).contains(members) { throw ValidationError("--members must be 1...5000") }
        guard (0...1000).contains(pauseMilliseconds) else { throw ValidationError("--pause-ms must be 0...1000") }
        guard (0...5000).contains(heldMilliseconds) else { throw ValidationError("--held-ms must be 0...5000") }
        guard ["store", "all"].contains(stopBackends) else { throw ValidationError("--stop-backends: store or all") }
    }

    func run() async throws {
        installSignalHandlers()
        let fileLimit = LinuxSys.raiseFileLimit()
        guard fileLimit < 0 || fileLimit >= 2 * (members ?? 1_000) + 200 else {
            throw ValidationError("open-file limit \(fileLimit) is too low for this run (ulimit -n)")
        }
        var results: [FloorLatencyRun.Result] = []
        for scenario in scenarios {
            for run in 1...runs {
                do {
                    let result = try await FloorLatencyRun(scenario: scenario, options: self).measure(run: run)
                    results.append(result)
                    if !json { print(FloorLatencyText.line(result)) }
                } catch {
                    FileHandle.standardError.write(Data("pttbench: \(error)\n".utf8))
                    throw ExitCode(1)
                }
            }
        }
        if json {
            struct Runs: Encodable { var runs: [FloorLatencyRun.Result] }
            print(try Runs(runs: results).encodedJSON())
        }
    }
}
#endif
