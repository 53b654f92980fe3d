import TestSupport
import Testing

@testable import PTTCore

typealias FloorSplitMix = SplitMix64

@Suite("Floor control: random walk invariants")
struct FloorPropertyTests: FloorTesting {
    struct Scenario: Sendable, CustomTestStringConvertible {
        var seed: UInt64
        var configuration: FloorConfiguration
        var testDescription: String { "seed \(seed), capacity \(configuration.queueCapacityPerPriority)" }
    }

    static let scenarios: [Scenario] = [
        Scenario(seed: 1, configuration: .init(maxTalkTime: .seconds(10), queueCapacityPerPriority: 2)),
        Scenario(seed: 2, configuration: .init(queueCapacityPerPriority: 1, grantToSingleMember: false)),
        Scenario(
            seed: 3, configuration: .init(maxTalkTime: .seconds(6), preemptionGrace: .zero, queueCapacityPerPriority: 8)
        ),
        Scenario(seed: 4, configuration: .init(queueCapacityPerPriority: 0)),
    ]

    @Test(arguments: scenarios)
    func randomWalkKeepsInvariants(scenario: Scenario) throws {
        let configuration = scenario.configuration
        var rng = FloorSplitMix(seed: scenario.seed)
        let members = [alice, bob, carol, dave, erin]  // erin is receive-only
        var floor = FloorControl(configuration: configuration)
        var clock = 1_000_000  // ms
        var latest = at(clock)

        // What the members were told.
        var toldHolder: MemberID?
        var toldPositions: [MemberID: Int] = [:]

        for step in 0..<2000 {
            // Advance time (sometimes not at all, sometimes backwards).
            switch Int.random(in: 0..<10, using: &rng) {
            case 0: clock -= Int.random(in: 0...500, using: &rng)
            case 1, 2: break
            default: clock += Int.random(in: 1...1500, using: &rng)
            }
            let now = at(clock)
            let holderBefore = floor.holder
            let member = members.randomElement(using: &rng)!
            let event: String
            let actions: [FloorAction]
            switch Int.random(in: 0..<100, using: &rng) {
            case 0..<35:
                let priority = Int.random(in: 0...2, using: &rng)
                let memberCount = Int.random(in: -1...5, using: &rng)
                // Mostly ordinary; now and then an imminent peril or an emergency (issue 25).
                let urgency: FloorUrgency =
                    switch Int.random(in: 0..<12, using: &rng) {
                    case 0: .emergency
                    case 1: .imminentPeril
                    default: .ordinary
                    }
                event = "request(\(member), p\(priority), \(urgency), n\(memberCount))"
                let holderUrgency = floor.snapshot(now: now).holderUrgency
                actions = floor.request(
                    FloorCandidate(member: member, priority: priority, receiveOnly: member == erin, urgency: urgency),
                    memberCount: memberCount, now: now)
                // A more urgent request by someone else takes a taken floor at once, with no grace.
                if let holderUrgency, member != erin, member != holderBefore, urgency > holderUrgency {
                    try #require(
                        actions.prefix(3).elementsEqual([
                            .revoked(holderBefore!, .emergency), .granted(member, talkTime: configuration.maxTalkTime),
                            .taken(by: member),
                        ]), "step \(step): \(event) -> \(actions)")
                }
            case 35..<50:
                event = "release(\(member))"
                actions = floor.release(member, now: now)
            case 50..<70:
                let speaker = Bool.random(using: &rng) ? (floor.holder ?? member) : member
                event = "media(\(speaker))"
                actions = floor.mediaReceived(from: speaker, now: now)
            case 70..<77:
                event = "left(\(member))"
                actions = floor.memberLeft(member, now: now)
                toldPositions[member] = nil
            case 77..<80:
                event = "revoke"
                actions = floor.revoke(now: now)
            default:
                // Either at the scheduled deadline (as the I/O layer would) or whenever.
                let when = Bool.random(using: &rng) ? (floor.nextDeadline ?? now) : now
                clock = max(clock, Int(when.nanoseconds / 1_000_000))
                event = "timers"
                actions = floor.timersExpired(now: when)
            }
            latest = max(latest, at(clock))
            let context = Comment(rawValue: "step \(step): \(event) -> \(actions)")

            // Replay what was said.
            var previous: FloorAction?
            var currentHolder = holderBefore
            for action in actions {
                switch action {
                case .granted(let m, let talkTime):
                    #expect(m != erin, context)
                    #expect(talkTime >= .zero && talkTime <= configuration.maxTalkTime, context)
                    toldPositions[m] = nil
                case .taken(let m):
                    #expect(previous == .granted(m, talkTime: configuration.maxTalkTime), context)
                    toldHolder = m
                    currentHolder = m
                case .idle:
                    toldHolder = nil
                    currentHolder = nil
                case .revoked(let m, _):
                    #expect(m == currentHolder, context)
                case .queued(let m, let position):
                    #expect(m != erin, context)
                    toldPositions[m] = position
                case .queueCancelled(let m), .denied(let m, _):
                    toldPositions[m] = nil
                case .preemptionPending(let holder, let by, let grace):
                    #expect(holder == currentHolder, context)
                    #expect(by == floor.queue.first?.member, context)
                    #expect(grace == max(.zero, configuration.preemptionGrace), context)
                }
                previous = action
            }

            // Invariants.
            let queue = floor.queue
            let holder = floor.holder
            try #require(holder == toldHolder, context)
            if let holder { try #require(!queue.contains { $0.member == holder }, context) }
            try #require(Set(queue.map(\.member)).count == queue.count, context)
            try #require(holder != erin && !queue.contains { $0.member == erin || $0.receiveOnly }, context)
            for rank in Set(queue.map(\.rank)) {
                try #require(
                    queue.filter { $0.rank == rank }.count <= configuration.queueCapacityPerPriority, context)
            }
            try #require(zip(queue, queue.dropFirst()).allSatisfy { $0.rank >= $1.rank }, context)
            try #require((floor.nextDeadline == nil) == (holder == nil), context)
            try #require((floor.talkTimeLeft(now: now) == nil) == (holder == nil), context)
            var actualPositions: [MemberID: Int] = [:]
            for (index, entry) in queue.enumerated() { actualPositions[entry.member] = index + 1 }
            try #require(toldPositions == actualPositions, context)

            let snapshot = floor.snapshot(now: now)
            try #require(snapshot.holder == holder && snapshot.queue == queue.map(\.member), context)
            // Nobody waits more urgent than the holder: such a request takes the floor at once.
            if let holderUrgency = snapshot.holderUrgency {
                try #require(queue.allSatisfy { $0.urgency <= holderUrgency }, context)
            }
            let outranked =
                snapshot.holderPriority.map { holderPriority in
                    let holderRank = (snapshot.holderUrgency ?? .ordinary).rankOffset + holderPriority
                    return (queue.first?.rank ?? .min) > holderRank
                } ?? false
            try #require((snapshot.pendingPreemptionBy != nil) == outranked, context)
            if outranked { try #require(snapshot.pendingPreemptionBy == queue.first?.member, context) }
            if event == "timers", let deadline = floor.nextDeadline, configuration.preemptionGrace > .zero {
                try #require(deadline > latest, context)
            }
        }
    }
}
