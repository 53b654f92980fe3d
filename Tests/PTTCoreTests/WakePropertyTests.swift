import TestSupport
import Testing

@testable import PTTCore

private typealias W = WakeFixture

@Suite("Wake policy and push outbox: random walk invariants")
struct WakePropertyTests {
    // MARK: Wake policy

    @Test(arguments: [1, 2, 3, 0xB0057] as [UInt64])
    func wakePolicyRandomWalkWakesEachEligibleMemberExactlyOncePerBurst(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        let maxDelay = Duration.milliseconds(Int.random(in: 1...3000, using: &rng))
        var policy = WakePolicy(configuration: WakeConfiguration(maxDelay: maxDelay))
        let channels = (1...3).map(W.channel)
        let members = (0..<8).map { MemberID("m\($0)") }

        /// What the test knows of each channel's running burst.
        struct Running {
            var id: BurstID
            var speaker: MemberID
            var startedAt: PTTInstant
            var decided: Set<MemberID>
        }
        var running: [ChannelID: Running] = [:]
        var seenBursts: Set<BurstID> = []
        var clock = 1_000
        var decisionsMade = 0
        var burstsStarted = 0
        var repeats = 0
        var ends = 0

        for step in 0..<2000 {
            clock += Int.random(in: 0...400, using: &rng)
            let now = W.at(clock)
            let channel = channels.randomElement(using: &rng)!
            let roll = Int.random(in: 0..<100, using: &rng)

            if roll < 15 {
                // The floor goes idle.
                let ended = policy.burstEnded(in: channel)
                #expect(ended == running[channel]?.id, "step \(step): burstEnded")
                #expect(policy.burstEnded(in: channel) == nil, "step \(step): a second burstEnded")
                running[channel] = nil
                ends += 1
                continue
            }

            // Random candidates: some members, maybe listed twice (with the same state), random reachability/route.
            var candidates: [WakeCandidate] = []
            for member in members where Bool.random(using: &rng) {
                let candidate = WakeCandidate(
                    member: member, audioReachable: Int.random(in: 0..<3, using: &rng) == 0,
                    route: WakeRoute.allCases.randomElement(using: &rng)!)
                candidates.append(candidate)
                if Int.random(in: 0..<8, using: &rng) == 0 { candidates.append(candidate) }
            }
            candidates.shuffle(using: &rng)

            let again = roll < 55 ? running[channel] : nil
            let burst: BurstID
            let speaker: MemberID
            if let again {
                burst = again.id
                speaker = again.speaker
                repeats += 1
            } else {
                var fresh = BurstID.random(using: &rng)
                while seenBursts.contains(fresh) { fresh = BurstID.random(using: &rng) }
                burst = fresh
                seenBursts.insert(burst)
                speaker = members.randomElement(using: &rng)!
                burstsStarted += 1
            }
            let before = running[channel]
            let result = policy.burstStarted(burst, in: channel, speaker: speaker, candidates: candidates, now: now)
            let context = "step \(step): burst \(burst) in \(channel), speaker \(speaker)"

            // Ending: only a different burst in the same channel ends, and it is reported.
            if let before, before.id != burst {
                #expect(result.ended == before.id, "\(context)")
            } else {
                #expect(result.ended == nil, "\(context)")
            }
            var state =
                (before?.id == burst ? before : nil)
                ?? Running(id: burst, speaker: speaker, startedAt: now, decided: [])

            // Every decision: about an eligible member, not decided before in this burst, with the right shape.
            var decidedNow: [MemberID] = []
            for decision in result.decisions {
                let member = decision.decidedMember
                decidedNow.append(member)
                #expect(member != state.speaker, "speaker woken. \(context)")
                let entries = candidates.filter { $0.member == member }
                #expect(!entries.isEmpty, "decided a non-candidate \(member). \(context)")
                #expect(entries.allSatisfy { !$0.audioReachable }, "reachable member \(member) decided. \(context)")
                #expect(!state.decided.contains(member), "\(member) decided twice in \(burst). \(context)")
                let route = try #require(entries.first).route
                switch decision {
                case .wake(let order):
                    #expect(order.route == route && route != .none, "\(context)")
                    #expect(order.channel == channel && order.burst == burst, "\(context)")
                    #expect(order.deadline == state.startedAt + maxDelay, "\(context)")
                case .expired(_, let expiredBurst, let reason):
                    #expect(route == .none && reason == .noRoute && expiredBurst == burst, "\(context)")
                }
            }
            #expect(Set(decidedNow).count == decidedNow.count, "a member decided twice in one call. \(context)")
            // ... and every eligible member not decided before is decided now.
            let eligible = Set(candidates.filter { !$0.audioReachable && $0.member != state.speaker }.map(\.member))
            #expect(Set(decidedNow) == eligible.subtracting(state.decided), "\(context)")

            state.decided.formUnion(decidedNow)
            running[channel] = state
            decisionsMade += decidedNow.count
            for channel in channels { #expect(policy.burst(in: channel) == running[channel]?.id, "\(context)") }
        }
        // The walk exercised every path.
        #expect(burstsStarted > 100 && repeats > 100 && ends > 100 && decisionsMade > 1000)
    }

    // MARK: Push outbox

    struct OutboxScenario: Sendable, CustomTestStringConvertible {
        var seed: UInt64
        var capacity: Int
        var priorities: [Int]
        var testDescription: String { "seed \(seed), capacity \(capacity), priorities \(priorities)" }
    }

    /// What became of an enqueued item.
    enum Fate: Equatable, CustomStringConvertible {
        case handedOut, expired, droppedForCapacity, burstEnded, removed
        var description: String {
            switch self {
            case .handedOut: "handed out"
            case .expired: "expired"
            case .droppedForCapacity: "dropped for capacity"
            case .burstEnded: "dropped as its burst ended"
            case .removed: "removed"
            }
        }
    }

    @Test(arguments: [
        OutboxScenario(seed: 11, capacity: 1, priorities: [5, 10]),
        OutboxScenario(seed: 12, capacity: 3, priorities: [5, 10]),
        OutboxScenario(seed: 13, capacity: 8, priorities: [5, 10]),
        OutboxScenario(seed: 14, capacity: 5, priorities: [1, 5, 10]),
        OutboxScenario(seed: 15, capacity: 64, priorities: [5, 10]),
    ])
    func outboxRandomWalkKeepsOrderDeadlinesAndLosesNothing(scenario: OutboxScenario) {
        var rng = SplitMix64(seed: scenario.seed)
        var outbox = PushOutbox<Int>(capacity: scenario.capacity)
        let members = [W.alice, W.bob, W.carol, W.dave]
        let bursts = (0..<3).map { BurstID("b\($0)") }

        /// The reference: what waits, with each item's arrival number.
        var waiting: [(item: OutboxItem<Int>, seq: Int)] = []
        var fates: [String: Fate] = [:]
        var enqueued: [String] = []
        var clock = 0
        var counts: [Fate: Int] = [:]

        func settle(_ items: [OutboxItem<Int>], as fate: Fate, _ context: String) {
            for item in items {
                #expect(
                    fates[item.id] == nil,
                    "\(item.id) was \(fates[item.id].map(String.init(describing:)) ?? "") and is now \(fate). \(context)"
                )
                fates[item.id] = fate
                counts[fate, default: 0] += 1
                #expect(
                    waiting.contains { $0.item.id == item.id }, "\(item.id) settled but was not waiting. \(context)")
                waiting.removeAll { $0.item.id == item.id }
            }
        }
        /// Ranks before: higher priority, then earlier arrival.
        func before(_ a: (item: OutboxItem<Int>, seq: Int), _ b: (item: OutboxItem<Int>, seq: Int)) -> Bool {
            a.item.priority != b.item.priority ? a.item.priority > b.item.priority : a.seq < b.seq
        }

        for step in 0..<2000 {
            clock += Int.random(in: 0...60, using: &rng)
            let now = W.at(clock)
            let roll = Int.random(in: 0..<100, using: &rng)
            let context = "step \(step) (roll \(roll)) at \(now)"
            switch roll {
            case 0..<45:
                let seq = enqueued.count
                let id = "i\(seq)"
                let priority = scenario.priorities.randomElement(using: &rng)!
                let burst = priority == 10 && Bool.random(using: &rng) ? bursts.randomElement(using: &rng) : nil
                let item = OutboxItem(
                    id: id, kind: priority == 10 ? .wake : .announce,
                    member: members.randomElement(using: &rng)!, priority: priority,
                    deadline: W.at(max(0, clock + Int.random(in: -20...400, using: &rng))), burst: burst, payload: seq)
                enqueued.append(id)
                let wasFull = waiting.count >= scenario.capacity
                // The reference victim: the incoming item if it ranks no higher than everything waiting, else
                // the oldest of the lowest priority.
                var expectedVictim: String?
                if wasFull {
                    let lowest = waiting.map(\.item.priority).min()!
                    expectedVictim =
                        priority <= lowest
                        ? id : waiting.filter { $0.item.priority == lowest }.min { $0.seq < $1.seq }!.item.id
                }
                waiting.append((item, seq))
                let dropped = outbox.enqueue(item)
                #expect(dropped?.id == expectedVictim, "\(context)")
                if let dropped { settle([dropped], as: .droppedForCapacity, "\(context)") }
            case 45..<80:
                let result = outbox.next(now: now)
                let late = waiting.filter { $0.item.deadline < now }.map(\.item.id)
                #expect(Set(result.expired.map(\.id)) == Set(late), "\(context)")
                #expect(result.expired.allSatisfy { $0.deadline < now }, "\(context)")
                settle(result.expired, as: .expired, "\(context)")
                if let item = result.item {
                    #expect(item.deadline >= now, "\(item.id) handed out after its deadline. \(context)")
                    let entry = waiting.first { $0.item.id == item.id }
                    #expect(entry != nil, "\(context)")
                    if let entry {
                        // Nothing still waiting ranks before it: priority first, then FIFO.
                        let overtaken = waiting.filter { before($0, entry) }.map(\.item.id)
                        #expect(overtaken.isEmpty, "\(item.id) handed out before \(overtaken). \(context)")
                        #expect(item.payload == entry.seq, "\(context)")
                    }
                    settle([item], as: .handedOut, "\(context)")
                } else {
                    #expect(waiting.isEmpty, "nothing handed out while \(waiting.map(\.item.id)) wait. \(context)")
                }
            case 80..<88:
                let result = outbox.expire(now: now)
                #expect(
                    Set(result.map(\.id)) == Set(waiting.filter { $0.item.deadline < now }.map(\.item.id)), "\(context)"
                )
                settle(result, as: .expired, "\(context)")
            case 88..<94:
                let burst = bursts.randomElement(using: &rng)!
                let result = outbox.expire(burst: burst)
                #expect(
                    Set(result.map(\.id)) == Set(waiting.filter { $0.item.burst == burst }.map(\.item.id)), "\(context)"
                )
                settle(result, as: .burstEnded, "\(context)")
            case 94..<99:
                let member = members.randomElement(using: &rng)!
                let result = outbox.remove(member: member)
                #expect(
                    Set(result.map(\.id)) == Set(waiting.filter { $0.item.member == member }.map(\.item.id)),
                    "\(context)")
                settle(result, as: .removed, "\(context)")
            default:
                settle(outbox.removeAll(), as: .removed, "\(context)")
                #expect(waiting.isEmpty, "\(context)")
            }

            // The outbox agrees with the reference after every step.
            #expect(outbox.count == waiting.count, "\(context)")
            #expect(outbox.count <= scenario.capacity, "\(context)")
            #expect(outbox.isEmpty == waiting.isEmpty, "\(context)")
            #expect(outbox.nextDeadline == waiting.map(\.item.deadline).min(), "\(context)")
            #expect(outbox.waitingIDs == waiting.sorted(by: before).map(\.item.id), "\(context)")
        }

        // Drain what is left: everything handed out or expired.
        let drainAt = W.at(clock)
        while true {
            let result = outbox.next(now: drainAt)
            settle(result.expired, as: .expired, "drain")
            guard let item = result.item else { break }
            settle([item], as: .handedOut, "drain")
        }
        #expect(waiting.isEmpty)
        // Nothing lost: every enqueued item met exactly one fate.
        #expect(fates.count == enqueued.count)
        #expect(enqueued.allSatisfy { fates[$0] != nil })
        // The walk exercised every fate.
        for fate in [Fate.handedOut, .expired, .droppedForCapacity, .removed]
        where scenario.capacity < 64 || fate != .droppedForCapacity {
            #expect(counts[fate, default: 0] > 0, "no item was \(fate)")
        }
        #expect(counts[.burstEnded, default: 0] > 0)
    }
}
