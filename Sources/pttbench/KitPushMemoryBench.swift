#if os(Linux)
import ArgumentParser
import Foundation
import NIOConcurrencyHelpers
import PTTKit
import PTTProtocol

/// `pttbench kit-push-memory`: whether a Local Push extension's `PushProviderSession` stays flat in memory over a
/// long stretch of heartbeats and wakes (an extension whose memory grows is killed by iOS).
struct KitPushMemoryBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kit-push-memory",
        abstract: "PTTKit: a PushProviderSession's memory over --minutes of 1 s heartbeats and --wake-count wakes.",
        discussion: """
            Starts pttd (TLS unless --no-tls; heartbeatIntervalMs 1000, applied by a reload and checked in welcome). \
            Bob's device holds a membership of "deck" (a bare control connection, no media) and keeps one \
            PushProviderSession connected; ann (PTTClient) makes --wake-count bursts spread evenly over --minutes: take \
            the floor, one packet, release, so each burst wakes bob's session once. Every wake is counted. This \
            process's heap in use (glibc mallinfo2 uordblks, plus mmapped chunks) and RSS are taken after the first \
            --warm-up-wakes wakes and at the end (and at --points points between); the heap includes ann's client, \
            which lives in this process too. For leaks, build with --sanitize=address and run with LSAN_OPTIONS \
            (Docs/BENCHMARKS.md).
            """)

    @OptionGroup var server: KitServerOptions

    @Option(name: .long, help: "Minutes the session runs, 0.5...120.")
    var minutes = 10.0

    /// Not `--wakes`: the parent command has a `--wakes` option, which would take it.
    @Option(name: .customLong("wake-count"), help: "Bursts (wakes) spread over the run.")
    var wakes = 1000

    @Option(name: .long, help: "Wakes before the baseline is taken.")
    var warmUpWakes = 50

    @Option(name: .long, help: "Memory samples between the baseline and the end.")
    var points = 10

    func validate() throws {
        guard (0.5...120).contains(minutes) else { throw ValidationError("--minutes must be 0.5...120") }
        guard (1...1000).contains(warmUpWakes) else { throw ValidationError("--warm-up-wakes must be 1...1000") }
        guard wakes > warmUpWakes, wakes <= 100_000 else {
            throw ValidationError("--wake-count must exceed --warm-up-wakes and be at most 100000")
        }
        guard Double(wakes) / (minutes * 60) <= 5 else { throw ValidationError("at most 5 wakes per second") }
        guard (1...100).contains(points) else { throw ValidationError("--points must be 1...100") }
    }

    func run() async throws {
        try await KitBenchServer.run(server, settings: ["heartbeatIntervalMs": 1000]) { try await measure($0) }
    }

    private func measure(_ pttd: KitBenchServer) async throws -> String {
        let deck = try await KitDeck.make(on: pttd)
        let (annSecret, bob) = (deck.annSecret, deck.bob)
        let heartbeat = deck.earlier.welcome.heartbeatIntervalMs
        guard heartbeat == 1000 else { throw BenchError("welcome says heartbeatIntervalMs \(heartbeat), not 1000") }

        let provider = try await PushProviderSession.start(to: pttd.endpoint, credentials: bob, security: pttd.security)
        // The extension's loop: takes each wake (as reportPushToTalkMessage would) and counts it.
        let received = NIOLockedValueBox(0)
        let consumer = Task {
            for await wake in provider.wakes {
                _ = wake.userInfo
                received.withLockedValue { $0 += 1 }
            }
        }
        let ann = try await PTTClient.connect(
            to: pttd.endpoint, credentials: PTTCredentials(user: "ann", secret: annSecret, device: "ann-phone"),
            security: pttd.security)
        // Ann's app reads its events, as an app does: unread, they would wait in the stream (up to 10,000, two per
        // burst) and count as growth here.
        let annEvents = Task { for await _ in ann.events {} }
        let annDeck = try await ann.join("deck")
        try await pttd.waitFor("the relay hears ann", user: "ann", in: "deck") { $0.audioReachable }
        try await pttd.waitFor("bob's wake route is Local Push", user: "bob", in: "deck") {
            $0.wakeRoute == .localPush
        }

        let interval = Duration.milliseconds(Int(minutes * 60_000 / Double(wakes)))
        let start = ContinuousClock.now
        var missing = 0
        var baseline: KitHeap?
        var series: [(wakes: Int, seconds: Double, heap: KitHeap)] = []
        let every = max(1, (wakes - warmUpWakes) / points)
        for burst in 0..<wakes {
            try await Task.sleep(until: start + interval * burst)
            let before = received.withLockedValue { $0 }
            guard case .granted = try await annDeck.requestFloor() else { throw BenchError("ann was not granted") }
            try annDeck.send(opus: KitWakeMembers.packet(iteration: burst, index: 0))
            try await annDeck.releaseFloor()
            let deadline = ContinuousClock.now + .seconds(2)
            while received.withLockedValue({ $0 }) == before, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(2))
            }
            if received.withLockedValue({ $0 }) == before { missing += 1 }
            let done = burst + 1
            if done == warmUpWakes || (done > warmUpWakes && (done - warmUpWakes) % every == 0) || done == wakes {
                let heap = KitHeap.sample()
                if baseline == nil { baseline = heap }
                series.append((done, PTTBench.seconds(ContinuousClock.now - start), heap))
            }
        }
        // A few more heartbeats with nothing else going on, then the final figure.
        try await Task.sleep(for: .seconds(3))
        let end = KitHeap.sample()
        let healthy = await provider.checkHealth()
        let reconnects = await provider.reconnects
        let pttdRSS = ProcStats.memoryKB(pid: pttd.process.pid, field: "VmRSS") ?? 0
        await provider.stop()
        await consumer.value
        await ann.close()
        await annEvents.value
        return report(
            baseline: baseline ?? end, end: end, series: series, received: received.withLockedValue { $0 },
            missing: missing, healthy: healthy, reconnects: reconnects, tls: pttd.tls, pttdRSSKB: pttdRSS,
            seconds: PTTBench.seconds(ContinuousClock.now - start))
    }

    private func report(
        baseline: KitHeap, end: KitHeap, series: [(wakes: Int, seconds: Double, heap: KitHeap)], received: Int,
        missing: Int, healthy: Bool, reconnects: Int, tls: Bool, pttdRSSKB: Int, seconds: Double
    ) -> String {
        func mb(_ bytes: Int) -> String { String(format: "%.3f", Double(bytes) / 1e6) }
        var lines = [
            "kit-push-memory: \(wakes) wakes over \(String(format: "%.1f", seconds)) s, heartbeats every 1 s, control \(tls ? "TLS" : "clear text (--no-tls)")",
            "wakes received: \(received) of \(wakes), missing: \(missing)\(received > wakes ? ", duplicates: \(received - wakes)" : "")",
            "session at the end: heartbeats healthy \(healthy), reconnects \(reconnects)",
            "",
            "| after wakes | s | heap in use MB (uordblks) | mmapped MB (hblkhd) | RSS MB |",
            "|---:|---:|---:|---:|---:|",
        ]
        for point in series {
            lines.append(
                "| \(point.wakes) | \(String(format: "%.0f", point.seconds)) | \(mb(point.heap.inUse)) | \(mb(point.heap.mmapped)) | \(mb(point.heap.resident)) |"
            )
        }
        lines.append(
            "| end (+3 s idle) | \(String(format: "%.0f", seconds)) | \(mb(end.inUse)) | \(mb(end.mmapped)) | \(mb(end.resident)) |"
        )
        let growth = (end.inUse + end.mmapped) - (baseline.inUse + baseline.mmapped)
        lines += [
            "",
            "heap growth after \(warmUpWakes) warm-up wakes → end: \(KitHeap.megabytes(end.inUse - baseline.inUse)) MB in use, \(KitHeap.megabytes(end.mmapped - baseline.mmapped)) MB mmapped; RSS \(KitHeap.megabytes(end.resident - baseline.resident)) MB",
            "target (issue 22): heap growth ≤ 1 MB: \(growth <= 1_000_000 ? "met" : "not met") (\(KitHeap.megabytes(growth)) MB)",
            "pttd RSS at the end: \(mb(pttdRSSKB * 1024)) MB",
        ]
        return lines.joined(separator: "\n")
    }
}
#endif
