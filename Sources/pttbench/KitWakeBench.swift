#if os(Linux)
import ArgumentParser
import Foundation
import PTTKit
import PTTProtocol

/// `pttbench kit-wake`: how long a woken iPhone app takes, through PTTKit, from the Local Push wake to the first
/// packet of the burst it was woken for (issue 22's "wake to first audio").
struct KitWakeBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kit-wake",
        abstract: "PTTKit: wake received → first audio handed to the app, per step, against a real pttd.",
        discussion: """
            Starts pttd (TLS with a self-signed certificate unless --no-tls; loopback; pinned to --server-cpu, \
            pttbench to --bench-cpu) with mediaSilenceTimeoutMs 1000. Bob joins channel "deck" with a bare control \
            connection that opens no media (it also pins the certificate in a known-hosts file), then only his Local \
            Push session (PushProviderSession) stays connected. Ann (PTTClient) joins and, each iteration, takes the \
            floor and talks (20 ms packets, paced by the kit). When bob's session yields the wake, his "app" does \
            what a woken app does: PTTClient.connect, attach the membership from welcome, wait for the first .audio \
            on handle.audio. Then ann releases, the app closes (the membership stays), and the next iteration waits \
            until the relay no longer counts bob as reachable, so that each burst wakes him again. \
            Prints p50, p95, p99, max and mean per step over the iterations (the warm-up ones not counted).
            """)

    @OptionGroup var server: KitServerOptions

    @Option(name: .long, help: "Measured iterations (bursts), 1...2000.")
    var iterations = 200

    @Option(name: .long, help: "Iterations run first and not counted (cold code paths, first connections).")
    var warmUp = 5

    @Option(name: .long, help: "Seconds the whole run may take; it stops early (and says so) when they are up.")
    var timeLimit = 900.0

    @Option(name: .long, help: "Seconds to wait for each wake before giving up the run.")
    var wakeTimeout = 5.0

    @Option(
        name: .long,
        help:
            "How the woken app opens the channel: attach (the membership from welcome, as Docs/CLIENT.md says) or join (a fresh SRTP key: works with --media-security srtp)."
    )
    var resume = "attach"

    @Option(name: .long, help: "Write every measured iteration's steps (milliseconds) to this CSV file.")
    var samples: String?

    func validate() throws {
        guard (1...2000).contains(iterations) else { throw ValidationError("--iterations must be 1...2000") }
        guard (0...100).contains(warmUp) else { throw ValidationError("--warm-up must be 0...100") }
        guard (10...7200).contains(timeLimit) else { throw ValidationError("--time-limit must be 10...7200") }
        guard ["attach", "join"].contains(resume) else { throw ValidationError("--resume must be attach or join") }
        guard (0.5...60).contains(wakeTimeout) else { throw ValidationError("--wake-timeout must be 0.5...60") }
    }

    func run() async throws {
        try await KitBenchServer.run(server, settings: ["mediaSilenceTimeoutMs": 1000]) { try await measure($0) }
    }

    private func measure(_ pttd: KitBenchServer) async throws -> String {
        let started = ContinuousClock.now
        let members = try await setUp(pttd)
        var rows = [
            KitSeries("(talker's grant answered → wake taken)"),
            KitSeries("wake → TCP connected (incl. client set-up)"), KitSeries("TCP → TLS done"),
            KitSeries("TLS → welcome (hello)"), KitSeries("welcome → \(resume) done (media open)"),
            KitSeries("\(resume) → first packet handed to the app"), KitSeries("**total: wake → first audio**"),
        ]
        var csv = ["iteration,grant_to_wake,tcp,tls,hello,attach,first_audio,total,first_index"]
        var firstIndices: [Int: Int] = [:]
        var notFromStart = 0
        var measured = 0
        var stoppedEarly: String?
        for iteration in 0..<(warmUp + iterations) {
            if ContinuousClock.now - started > .milliseconds(Int(timeLimit * 1000)) {
                stoppedEarly = "stopped by --time-limit \(timeLimit) s after \(measured) measured iterations"
                break
            }
            let sample = try await members.run(
                iteration: iteration, wakeTimeout: .milliseconds(Int(wakeTimeout * 1000)))
            guard iteration >= warmUp else { continue }
            measured += 1
            let values = [
                sample.grantToWake, sample.tcp, sample.tls, sample.hello, sample.attach, sample.firstAudio,
                sample.total,
            ]
            for (index, value) in values.enumerated() { rows[index].record(value) }
            if !sample.fromBurstStart { notFromStart += 1 }
            firstIndices[sample.firstIndex, default: 0] += 1
            csv.append(
                "\(iteration - warmUp),"
                    + values.map { String(format: "%.3f", Double($0) / 1e6) }.joined(separator: ",")
                    + ",\(sample.firstIndex)")
        }
        await members.provider.stop()
        await members.annClient.close()
        if let samples {
            try (csv.joined(separator: "\n") + "\n").write(toFile: samples, atomically: true, encoding: .utf8)
        }
        if !pttd.tls { rows[3] = KitSeries("TCP → welcome (hello)", rows[3].samples) }
        if !pttd.tls { rows.remove(at: 2) }
        let p95 = rows.last?.percentile(0.95) ?? .infinity
        return """
            kit-wake: \(measured) iterations (+\(warmUp) warm-up), control \(pttd.tls ? "TLS (certificate pinned in known_hosts)" : "clear text (--no-tls)"), media \(server.mediaSecurity), woken app does \(resume), loopback
            \(stoppedEarly.map { "NOTE: \($0)\n" } ?? "")
            \(KitTable.markdown(rows))

            first packet handed over was the burst's first (catch-up from the start): \(measured - notFromStart) of \(measured)
            index in the burst of the first packet handed over (index: iterations): \(firstIndices.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", "))
            target (issue 22): total p95 ≤ 150 ms on loopback: \(String(format: "%.1f", p95)) ms (\(p95 <= 150 ? "met" : "not met"))
            run took \(String(format: "%.0f", PTTBench.seconds(ContinuousClock.now - started))) s
            """
    }

    /// Bob's earlier membership and Local Push session, ann's app and membership; waits until bob is woken by
    /// Local Push and ann is heard by the relay.
    private func setUp(_ pttd: KitBenchServer) async throws -> KitWakeMembers {
        let deck = try await KitDeck.make(on: pttd)
        let (annSecret, bob) = (deck.annSecret, deck.bob)
        if pttd.tls, !deck.earlier.pinnedCertificate { throw BenchError("the first connection pinned no certificate") }

        let provider = try await PushProviderSession.start(to: pttd.endpoint, credentials: bob, security: pttd.security)
        let ann = try await PTTClient.connect(
            to: pttd.endpoint, credentials: PTTCredentials(user: "ann", secret: annSecret, device: "ann-phone"),
            security: pttd.security)
        let annDeck = try await ann.join("deck")
        try await pttd.waitFor("the relay hears ann", user: "ann", in: "deck") { $0.audioReachable }
        try await pttd.waitFor("bob's wake route is Local Push", user: "bob", in: "deck") {
            $0.wakeRoute == .localPush && !$0.audioReachable
        }
        return KitWakeMembers(
            annClient: ann, annDeck: annDeck, provider: provider, bob: bob, server: pttd, rejoin: resume == "join")
    }
}
#endif
