#if os(Linux)
import ArgumentParser

// `pttbench matrix`'s options by concern. The groups have no titles, so `--help` lists every option in one
// section, in this order, as before they were grouped.

/// The C reference relay the matrix compares pttd with.
struct ReferenceRelayOptions: ParsableArguments {
    @Option(
        name: .long,
        help: "A compiled C reference relay (default: compile --reference-source into a temporary directory).")
    var referenceRelay: String?

    @Option(name: .long, help: "Source of the C reference relay.")
    var referenceSource = "Sources/pttbench/ReferenceRelay/reference-relay.c"

    @Option(name: .long, help: "UDP port for the C reference relay.")
    var relayPort = 39_100
}

/// Which runs the matrix makes, and how many times.
struct MatrixPlanOptions: ParsableArguments {
    @Option(name: .long, help: "Listener counts of the flood runs, comma-separated.")
    var sizes = "10,100,1000"

    @Option(name: .long, help: "Listeners of the 50 packets/s SRTP run (0: skip it).")
    var rateListeners = 1000

    @Option(name: .long, help: "Members of the join benchmark over TLS (0: skip it).")
    var joinMembers = 1000

    @Option(name: .long, help: "How many times the whole sequence runs.")
    var repeats = 2

    var parsedSizes: [Int] {
        sizes.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }.filter {
            (1...5000).contains($0)
        }
    }

    /// Runs in all: per repeat, three per size, two at 50 packets/s, one of joins.
    var runCount: Int { repeats * (3 * parsedSizes.count + (rateListeners > 0 ? 2 : 0) + (joinMembers > 0 ? 1 : 0)) }
}

/// How each run of the matrix is made.
struct MatrixRunOptions: ParsableArguments {
    @Option(name: .long, help: "Seconds of sending per run.")
    var seconds = 10.0

    @Option(name: .long, help: "Each run waits up to this many seconds for both cores to be quiet before sending.")
    var waitQuiet = 30.0

    @Option(name: .long, help: "Core for the relay (pttd or the C relay).")
    var serverCPU = 0

    @Option(name: .long, help: "Core for pttbench.")
    var benchCPU = 1
}
#endif
