import Foundation
import PTTProtocol
import ServerTestSupport
import TestSupport
import Testing

/// The browser walkie-talkie's mouth-to-ear delay, page to page, in Debian's chromium against a real `pttd`: its
/// jitter buffer keeps the delay low on a quiet machine, and does not let it grow while the machine is loaded.
///
/// A measurement of time: `make test` runs this suite in a pass of its own, with nothing else running (the other
/// heavy suites build packages and run browsers at the same time as each other: a "quiet" phase among them measured
/// 181–271 ms), and the sanitized passes leave it out, as they leave out the stress suite.
@Suite(
    "Browser mouth-to-ear", .serialized, .timeLimit(.minutes(3)),
    .enabled(if: Browser.available, Browser.unavailableReason))
struct PageLatencyTests {
    struct MouthToEar: Decodable {
        /// [seconds since the grant at capture, delay in ms]
        var delays: [[Double]]
        var captured: Int
        var played: Int
        var underruns: Int?
    }

    @Test(
        "mouth-to-ear from page to page (chirp onsets through a fake microphone): median ≤ 100 ms on a quiet machine, and no growth over 20 s of a burst while 12 busy processes load it"
    )
    func mouthToEar() async throws {
        try await withTestServer(configure: { $0.tls = true }) { server in
            let web = try require_(server.server.runtimeInfo?.webURL)
            let janeSecret = try await server.addUser("jane")
            let bobSecret = try await server.addUser("bob")
            let arguments = [web, "jane", janeSecret, "bob", bobSecret, "deck"]

            let quiet = try await Browser.run("mouth_to_ear.py", arguments + ["6"], as: MouthToEar.self)
            let quietDelays = quiet.delays.map { $0[1] }
            #expect(quietDelays.count >= quiet.captured - 1 && quietDelays.count >= 6, "\(quiet)")
            #expect(Self.median(quietDelays) <= 100, "quiet mouth-to-ear: \(quietDelays) ms")

            // 2 s for the buffer to grow to the jitter the load brings (what it is for), then 20 s in which the delay
            // must not keep growing.
            let settle = 2.0
            let hold = 20.0
            let loaded = try await Browser.run(
                "mouth_to_ear.py", arguments + ["\(settle + hold)", "12"], as: MouthToEar.self)
            // A stall may cost a chirp or two (played late beyond the buffer's 1 s, or cut): most are paired.
            #expect(loaded.delays.count * 4 >= loaded.captured * 3 && loaded.delays.count >= 24, "\(loaded)")
            let firstQuarter = loaded.delays.filter { (settle..<settle + hold / 4).contains($0[0]) }.map { $0[1] }
            let lastQuarter = loaded.delays.filter { $0[0] >= settle + hold * 3 / 4 }.map { $0[1] }
            print(
                "mouth-to-ear: quiet \(quietDelays) ms (median \(Self.median(quietDelays))); loaded first quarter",
                "\(firstQuarter) ms (median \(Self.median(firstQuarter))), last \(lastQuarter) ms (median",
                "\(Self.median(lastQuarter))); underruns quiet \(quiet.underruns ?? -1), loaded \(loaded.underruns ?? -1)"
            )
            // Load makes the delay jump about: the buffer grows with the jitter the load brings, which is what it is
            // for, and the load's jitter changes over the burst (a fresh clone's run went 90 → 160 ms, tracking it).
            // What must not happen is the old player's ratchet, which only grew: 320 → 1002 ms, or 192 → 259 → 431 ms,
            // within such a burst. So the last quarter stays near the first, or within 250 ms (MCPTT's mouth-to-ear
            // target, KPI 3, is 300 ms).
            #expect(
                Self.median(lastQuarter) <= max(Self.median(firstQuarter) + 50, Self.loadedCeiling),
                "loaded mouth-to-ear grew: first quarter \(firstQuarter) ms, last \(lastQuarter) ms; all \(loaded.delays)"
            )
        }
    }

    /// The loaded burst's last quarter may end up here even when its first quarter was lower (ms).
    static let loadedCeiling = 250.0

    static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return .infinity }
        let sorted = values.sorted()
        return sorted.count % 2 == 1
            ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }
}
