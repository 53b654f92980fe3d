import Foundation
import TestSupport
import Testing

/// Node, to run the page's scripts outside a browser.
enum NodeJS {
    /// Debian's `node`, or the one Playwright for Python runs its driver with (`make test` installs Playwright).
    static let path: String? = Tools.path("node") ?? Browser.python.flatMap(playwrightNode)

    private static func playwrightNode(python: String) -> String? {
        let find = "import os, playwright; print(os.path.join(os.path.dirname(playwright.__file__), 'driver', 'node'))"
        guard let run = try? ToolRun.runBlocking(python, ["-c", find]), run.status == 0 else { return nil }
        let path = run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }
}

/// The page's jitter buffer (`playback-worklet.js`) outside a browser, in Node, with the audio clock driven by
/// `Tests/Browser/playback_cushion.mjs`: the cushion it keeps after each arrival pattern. It grows with jitter that
/// recurs, and not with one stall's backlog.
@Suite("Playback cushion", .enabled(if: NodeJS.path != nil, "needs Node (Playwright brings one)"))
struct PlaybackCushionTests {
    @Test(
        "the cushion covers jitter that recurs (40 ms of random jitter, frames in pairs, a 0.2 s stall every 0.3 s) and stays at its floor on time and after one 0.5 s stall, whether its backlog comes at once or catching up"
    )
    func cushions() async throws {
        let worklet = PackagePaths.root.appendingPathComponent("Sources/PTTServer/Web/Assets/playback-worklet.js")
        let script = PackagePaths.tests.appendingPathComponent("Browser/playback_cushion.mjs")
        let run = try await ToolRun.run(try require_(NodeJS.path), [script.path, worklet.path], timeout: .seconds(30))
        try #require(run.status == 0, "\(run.stderr)")
        let line = run.stdout.split(separator: "\n").last.map(String.init) ?? ""
        let cushion = try JSONDecoder().decode([String: Double].self, from: Data(line.utf8))
        // On time: the floor (10 ms).
        #expect(cushion["steady"] == 10, "\(cushion)")
        // Uniform jitter of 0–40 ms: about its 95th–97.5th percentile, plus the 6 ms margin.
        #expect((40...50).contains(try require_(cushion["jitter40"])), "\(cushion)")
        // Every other frame 20 ms late (frames come in pairs): 20 ms plus the margin.
        #expect((20...30).contains(try require_(cushion["pairs"])), "\(cushion)")
        // A stall of 0.2 s every 0.3 s is jitter: covered.
        #expect(try require_(cushion["recurringStalls"]) >= 190, "\(cushion)")
        // One stall of 0.5 s, then 2 s on time: its 25 late frames are one sample, so the cushion stays at its floor
        // (counted frame by frame they were 17 % of the window, and the cushion was 296–336 ms for the next 3 s).
        #expect(try require_(cushion["stallAtOnce"]) <= 20, "\(cushion)")
        #expect(try require_(cushion["stallCatchingUp"]) <= 20, "\(cushion)")
    }
}
