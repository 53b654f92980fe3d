import Testing

@testable import PTTCore

@Suite("Channel ownership: a simulated cluster's random walk")
struct ChannelOwnershipWalkTests {
    struct Scenario: Sendable, CustomTestStringConvertible {
        var seed: UInt64
        var nodes: Int
        var testDescription: String { "seed \(seed), \(nodes) nodes" }
    }

    static let scenarios = (1...24).map { Scenario(seed: UInt64($0), nodes: 2 + $0 % 3) }
    static let steps = 3000

    /// Walks one cluster: every step checks that no node decides a floor it does not own, that no two nodes
    /// connected to the database both think they own a channel, and that every request is answered once, in time;
    /// then a quiet time longer than any timeout leaves none unanswered.
    static func walk(_ scenario: Scenario) throws -> SimulatedCluster {
        var cluster = SimulatedCluster(seed: scenario.seed, nodeCount: scenario.nodes)
        for _ in 0..<steps { try cluster.step() }
        for _ in 0..<100 { try cluster.step(quiet: true) }
        try cluster.checkAllAnswered()
        return cluster
    }

    @Test(arguments: scenarios)
    func randomWalkKeepsInvariants(scenario: Scenario) {
        do {
            let cluster = try Self.walk(scenario)
            #expect(cluster.coverage["decideLocally"] > 0 && cluster.coverage["answer answeredBy"] > 0)
        } catch {
            Issue.record("\(scenario.testDescription): \(error)")
        }
    }

    /// The walks, together, reach every rule: decisions here and for other nodes, each kind of answer, failovers,
    /// refusals and members sent elsewhere.
    @Test func theWalksReachEveryRule() throws {
        var seen = SimulatedCluster.Coverage()
        for scenario in Self.scenarios.prefix(6) {
            let cluster = try Self.walk(scenario)
            for (what, count) in cluster.coverage.counts { seen.counts[what, default: 0] += count }
        }
        for what in [
            "decideLocally", "decideForwarded", "forward", "refuse", "answer answeredBy", "answer ownerUnreachable",
            "answer noOwner", "answer refused", "failover", "kill", "isolation", "sendMembersElsewhere",
        ] {
            #expect(seen[what] > 0, "the walks never reached \(what): \(seen.counts)")
        }
    }
}
