#if os(Linux)
import ArgumentParser

// pttbench's options by concern. The groups have no titles, so `--help` lists every option in one section, in
// this order, as before they were grouped.

/// The load: how many listeners, what the talker sends and for how long.
struct LoadOptions: ParsableArguments {
    @Option(name: .long, help: "Listeners (receiving members), 1...5000.")
    var listeners = 100

    @Option(name: .long, help: "Media protection: srtp or none.")
    var security = "srtp"

    @Option(name: .long, help: "Packets per second the talker sends (without --flood).")
    var rate = 50.0

    @Flag(name: .long, help: "Send as fast as delivery keeps up (a window of --window outstanding deliveries).")
    var flood = false

    @Option(
        name: .long,
        help:
            "Flood window: deliveries (packets × listeners) allowed in flight (default: the larger of 1024 and 4 × listeners)."
    )
    var window: Int?

    @Option(name: .long, help: "Seconds of sending, 0.5...600.")
    var seconds = 10.0

    @Option(
        name: .long,
        help:
            "Listeners (the first ones) that also scan: each device joins a second, silent channel and sends a scan list of both, the silent one first (Docs/PROTOCOL.md 5.45). 0: none."
    )
    var scanners = 0

    var floodWindow: Int { window ?? max(1024, 4 * listeners) }

    /// "flood" or "rate", as the report names the mode.
    var modeName: String { flood ? "flood" : "rate" }

    /// The talker's packets per second, nil with --flood.
    var offeredRate: Double? { flood ? nil : rate }

    /// How the engine paces the talker.
    var mode: LoadEngine.Mode { flood ? .flood(window: floodWindow) : .rate(rate) }

    /// Room for the send times of every packet the run can send.
    var maxPackets: Int { flood ? Int(min(seconds * 400_000, 20_000_000)) : Int((seconds * rate).rounded()) + 1 }
}

/// Members that become reachable by audio mid-burst: joined like the listeners, silent (not one packet to the
/// relay) until `lateAfter` seconds into the sending, then all heard at once, so pttd catches each one up.
struct LateListenerOptions: ParsableArguments {
    @Option(
        name: .long,
        help:
            "Extra listeners that send nothing until --late-after seconds into the sending, then their first keep-alive all at once; pttd runs with catchUp.mode late-joiners and catches each one up. Not counted in the latency, loss and checks of the listeners. 0: none."
    )
    var lateListeners = 0

    @Option(
        name: .customLong("late-after"),
        help:
            "Seconds into the sending when the late listeners send their first keep-alive (default 10). Given or with late listeners, the live listeners' latency for the packets sent in the \(Int(Self.windowSeconds)) s from then on is also reported apart (the catch-up window), so a run without late listeners gives the figure to compare with."
    )
    var lateAfterOption: Double?

    /// How long after --late-after the live listeners' latency is also measured apart.
    static let windowSeconds = 5.0

    /// Seconds into the sending when the late listeners are first heard.
    var lateAfter: Double { lateAfterOption ?? 10 }

    /// Seconds into the sending where the catch-up window starts, nil when it is not measured.
    var windowStart: Double? { lateListeners > 0 || lateAfterOption != nil ? lateAfter : nil }

    @Option(
        name: .customLong("catch-up-mode"),
        help:
            "pttd's catchUp.mode: off, woken or late-joiners (default: late-joiners with --late-listeners, else pttd's default). off gives a control run: the late listeners join the live stream with no catch-up."
    )
    var catchUpModeOption: String?

    @Option(name: .long, help: "pttd's catchUp.speed, 1.1...20 (default: pttd's, 4).")
    var catchUpSpeed: Double?

    /// pttd's `catchUp.mode` for the run: as given, else late-joiners with late listeners, else pttd's default.
    var catchUpMode: String? { catchUpModeOption ?? (lateListeners > 0 ? "late-joiners" : nil) }
}

/// Which pttd runs, and the cores it and pttbench are pinned to.
struct PlacementOptions: ParsableArguments {
    @Option(name: .long, help: "The pttd executable (default: next to pttbench).")
    var pttd: String?

    @Option(name: .long, help: "Core to pin pttd to.")
    var serverCPU = 0

    @Option(name: .long, help: "Core to pin pttbench to.")
    var benchCPU = 1

    @Flag(name: .long, help: "Pin nothing.")
    var noPin = false

    /// The pttd executable to start.
    var executable: String { pttd ?? PTTBench.siblingExecutable("pttd") }

    /// The cores pttd and pttbench are pinned to, nil with --no-pin.
    var pinnedServerCPU: Int? { noPin ? nil : serverCPU }
    var pinnedBenchCPU: Int? { noPin ? nil : benchCPU }

    /// The cores whose busy time is measured (-1: none, with --no-pin).
    var measuredServerCore: Int { pinnedServerCPU ?? -1 }
    var measuredBenchCore: Int { pinnedBenchCPU ?? -1 }
}

/// The Opus packets the talker sends.
struct PayloadOptions: ParsableArguments {
    @Option(
        name: .long,
        help:
            "Ogg Opus file whose packets the talker sends in a loop (default: 20 ms packets encoded here from noise at --bitrate)."
    )
    var opus: String?

    @Option(name: .long, help: "Bitrate of the generated Opus packets, bits/s.")
    var bitrate = 24_000
}

/// How the listeners receive and check what they receive.
struct ReceiveOptions: ParsableArguments {
    @Option(
        name: .long, help: "Decrypt and compare every n-th delivered packet (and each listener's first); 1 checks all.")
    var verifyEvery = 50

    @Flag(
        name: .long,
        help:
            "Take a packet's arrival time when pttbench reads it, not the kernel's receive timestamp (SO_TIMESTAMPNS).")
    var userTimestamps = false

    @Option(
        name: .long,
        help: "Receive buffer per listener socket, bytes (default: 1 MiB up to 100 listeners, 256 KiB above).")
    var receiveBuffer: Int?

    /// The receive buffer for a run with `listeners` listeners.
    func receiveBufferBytes(listeners: Int) -> Int { receiveBuffer ?? (listeners <= 100 ? 1 << 20 : 256 << 10) }

    /// How a packet's arrival time is taken, as the report names it.
    var arrivalClock: String { userTimestamps ? "read by pttbench" : "kernel receive timestamp" }
}

/// Before sending: joining everyone, and waiting for the machine to be quiet.
struct SetupOptions: ParsableArguments {
    /// 128: 1000 TLS joins took 3.3 s at 32, 2.8 s at 64, 2.2–2.6 s at 128 (pttd's core is the limit from 64 on),
    /// and 128 stays below pttd's 256 connections between accept and hello, so none waits near its hello deadline.
    @Option(
        name: .long,
        help: "Parallel connects while joining (at most 256, pttd's limit of connections between accept and hello).")
    var connectParallelism = 128

    @Option(name: .long, help: "Seconds allowed for joining everyone and for the relay to hear every listener.")
    var setupTimeout: Double?

    @Option(
        name: .long,
        help: "Before sending, wait up to this many seconds for both cores to be nearly idle (other processes).")
    var waitQuiet = 0.0

    @Option(name: .long, help: "Busy percentage of a core (over 1 s, before sending) that counts as quiet.")
    var quietThreshold = 5.0

    /// Seconds allowed for the setup of a run with `listeners` members.
    func setupBudget(listeners: Int) -> Double { setupTimeout ?? (60 + Double(listeners) * 0.1) }
}

/// Loading a relay pttbench did not start.
struct ExternalRelayOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Load another relay on 127.0.0.1:PORT instead of starting pttd (plain RTP; see Sources/pttbench/ReferenceRelay).",
            valueName: "port"))
    var externalRelay: Int?

    @Option(name: .long, help: "With --external-relay: that relay's pid, for its CPU and memory figures.")
    var externalPid: Int32?
}

/// How pttd runs and is stopped.
struct DaemonOptions: ParsableArguments {
    @Flag(
        name: .long,
        help:
            "Start pttd with TLS (a self-signed certificate) and connect every control client over TLS, pinned to the fingerprint in runtime.json (a temporary known_hosts file). Default: --no-tls, as earlier figures."
    )
    var tls = false

    @Option(
        name: .long,
        help:
            "After the run, send again (same mode) for this many seconds, then SIGTERM pttd while it relays and time its exit. 0: stop it after the run, idle."
    )
    var stopUnderLoad = 1.0

    @Option(name: .long, help: "pttd's log level.")
    var serverLogLevel = "warning"

    @Option(
        name: .long,
        help:
            "Start pttd as a cluster node on this PostgreSQL database (pttd --cluster URL --node pttbench): its data in PostgreSQL instead of SQLite. The database should be empty."
    )
    var cluster: String?

    @Option(
        name: .long,
        help:
            "With --cluster: start this many pttd nodes (pttbench-1…N) on the database, join the listeners to them in turn and the talker to the first, and report each node's CPU and relay figures. The database should be empty."
    )
    var nodes = 1
}

/// What pttbench prints and keeps.
struct OutputOptions: ParsableArguments {
    @Flag(name: .long, help: "Print the result as JSON.")
    var json = false

    @Flag(name: .long, help: "Keep pttd's data directory (its log is pttd.log).")
    var keep = false

    @Flag(name: .long, help: "Progress messages on standard error.")
    var verbose = false
}
#endif
