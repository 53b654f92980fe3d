import Foundation
import TestSupport
import Testing

/// `pttbench floor-latency` (issue 24's floor-grant measurement) run as a user runs it, against the pttd built beside
/// it: the quiet scenario's JSON has one sample per requested cycle, ordered figures, and pttd's own share of the
/// grants from its `ptt_floor_grant_seconds`. No timing threshold here:
/// the figures are Docs/BENCHMARKS.md's business.
@Suite("FloorLatencyBench", .timeLimit(.minutes(3)))
struct FloorLatencyBenchTests {
    private struct Output: Decodable {
        struct Run: Decodable {
            struct Latency: Decodable {
                var count: Int
                var p50Ms: Double?
                var p99Ms: Double?
                var maxMs: Double?
            }
            struct ServerShare: Decodable {
                var request: String
                var count: Int
                var meanMs: Double?
                var p50AtMostMs: Double?
                var p99AtMostMs: Double?
            }
            var scenario: String
            var requests: Int
            var latency: Latency
            var problems: [String]
            var serverShare: ServerShare?
        }
        var runs: [Run]
    }

    @Test("floor-latency --scenario quiet --requests 20 --json: 20 grants timed, p50 ≤ p99 ≤ max > 0, no problems")
    func quietRun() async throws {
        let run = try await ToolRun.run(
            try Executables.path("pttbench"),
            [
                "floor-latency", "--scenario", "quiet", "--requests", "20", "--json", "--pttd",
                try Executables.path("pttd"),
            ], timeout: .seconds(120).scaled)
        #expect(run.status == 0, "pttbench failed: \(run.stderr)")
        let output = try JSONDecoder().decode(Output.self, from: Data(run.stdout.utf8))
        #expect(output.runs.count == 1)
        let quiet = try #require(output.runs.first)
        #expect(quiet.scenario == "quiet")
        #expect(quiet.requests == 20)
        #expect(quiet.latency.count == 20)
        #expect(quiet.problems.isEmpty)
        let p50 = try #require(quiet.latency.p50Ms)
        let p99 = try #require(quiet.latency.p99Ms)
        let max = try #require(quiet.latency.maxMs)
        #expect(p50 <= p99)
        #expect(p99 <= max)
        #expect(max > 0)
        // pttd's own share, read from its histogram: the 20 grants, each within what the bench measured around it.
        let share = try #require(quiet.serverShare)
        #expect(share.request == "floor-request")
        #expect(share.count == 20)
        let mean = try #require(share.meanMs)
        #expect(mean > 0 && mean <= max)
        let shareP50 = try #require(share.p50AtMostMs)
        let shareP99 = try #require(share.p99AtMostMs)
        #expect(shareP50 <= shareP99)
    }
}
