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
        var stalls: [Stall]?
    }

    /// A page frozen from `start` to `end` (s after the grant): `[start, end, page]`.
    struct Stall: Decodable {
        var start: Double
        var end: Double
        var page: String

        init(from decoder: any Decoder) throws {
            var fields = try decoder.unkeyedContainer()
            start = try fields.decode(Double.self)
            end = try fields.decode(Double.self)
            page = try fields.decode(String.self)
        }
    }

    @Test(
        "mouth-to-ear from page to page (chirp onsets through a fake microphone): median ≤ 100 ms on a quiet machine, and no growth over 20 s of a burst while 12 busy processes load it"
    )
    func mouthToEar() async throws {
        try await Self.withTwoPages { arguments in
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

    /// A stalled page, deterministically: half a second of the talking page frozen (SIGSTOP of its renderer), and later
    /// of the listening page. Either way the listener runs dry, then gets half a second of audio at once. The chirps
    /// around the stall are late; those from 1 s after it ends must be back near the quiet delay. A player that takes
    /// one stall's backlog for lasting jitter (the cushion covered the 95th percentile of frames, and 25 frames of one
    /// stall are 17 % of its 3 s window) kept 400 ms for the next 3 s; that was a fresh clone's failure of the loaded
    /// run (81 → 562 ms).
    @Test(
        "a page frozen for 0.5 s (the talker's, then the listener's) costs the chirps around the stall, not the seconds after it: those from 1 to 2.5 s after it are heard within 150 ms"
    )
    func stalledPage() async throws {
        try await Self.withTwoPages { arguments in
            let run = try await Browser.run(
                "mouth_to_ear.py", arguments + ["13", "0", "4:talker:0.5,9:listener:0.5"], as: MouthToEar.self)
            let stalls = try require_(run.stalls)
            #expect(stalls.map(\.page) == ["talker", "listener"], "\(run)")
            for stall in stalls {
                let after = run.delays.filter { (stall.end + 1.0...stall.end + 2.5).contains($0[0]) }.map { $0[1] }
                print("mouth-to-ear after the \(stall.page)'s stall (\(stall.start)–\(stall.end) s): \(after) ms")
                #expect(after.count >= 2, "chirps 1–2.5 s after the \(stall.page)'s stall: \(run.delays)")
                #expect(
                    Self.median(after) <= Self.afterStallCeiling,
                    "the \(stall.page)'s stall (\(stall.start)–\(stall.end) s) left the delay up: \(run.delays)")
            }
        }
    }

    /// The chirps from 1 to 2.5 s after a stall stay within this (ms): the quiet delay is 40–60 ms here, a backlog of
    /// half a second drains in about 0.75 s, and the old player held 400 ms.
    static let afterStallCeiling = 150.0

    /// A TLS test server with users jane and bob; `body` gets mouth_to_ear.py's first arguments for them in deck.
    static func withTwoPages(_ body: ([String]) async throws -> Void) async throws {
        try await withTestServer(configure: { $0.tls = true }) { server in
            let web = try require_(server.server.runtimeInfo?.webURL)
            let janeSecret = try await server.addUser("jane")
            let bobSecret = try await server.addUser("bob")
            try await body([web, "jane", janeSecret, "bob", bobSecret, "deck"])
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
