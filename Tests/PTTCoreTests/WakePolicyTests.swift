import Foundation
import TestSupport
import Testing

@testable import PTTCore

private typealias W = WakeFixture

@Suite("Wake policy: who is woken for a talk burst")
struct WakePolicyTests {
    let ch1 = W.channel(1)
    let ch2 = W.channel(2)
    let b1 = BurstID("burst-1")
    let b2 = BurstID("burst-2")

    @Test func wakesEveryJoinedMemberNotReachableByAudioExceptTheSpeaker() {
        var policy = WakePolicy()
        let result = policy.burstStarted(
            b1, in: ch1, speaker: W.alice,
            candidates: [
                W.candidate(W.alice),  // the speaker
                W.candidate(W.bob),  // unreachable, local push
                W.candidate(W.carol, reachable: true),  // hears the burst without a wake
                W.candidate(W.dave, route: .apns),  // unreachable, APNs
                W.candidate(W.erin, route: .none),  // unreachable, no route
            ], now: W.at(1000))
        #expect(result.ended == nil)
        #expect(
            result.decisions == [
                W.wake(W.bob, ch1, b1, .localPush, deadline: W.at(3000)),
                W.wake(W.dave, ch1, b1, .apns, deadline: W.at(3000)),
                .expired(member: W.erin, burst: b1, reason: .noRoute),
            ])
        #expect(policy.burst(in: ch1) == b1)
        #expect(policy.burst(in: ch2) == nil)
    }

    @Test func theSpeakerIsNeverWokenWhateverItsRoute() {
        for route in WakeRoute.allCases {
            var policy = WakePolicy()
            let result = policy.burstStarted(
                b1, in: ch1, speaker: W.alice,
                candidates: [
                    W.candidate(W.alice, route: route), W.candidate(W.alice, route: route),
                ], now: W.at(0))
            #expect(result.decisions.isEmpty, "route \(route)")
            // Also not on a repeated start of the same burst.
            #expect(
                policy.burstStarted(
                    b1, in: ch1, speaker: W.alice, candidates: [W.candidate(W.alice, route: route)],
                    now: W.at(10)
                ).decisions.isEmpty)
        }
    }

    @Test func reachableMembersAreNeverWokenWhateverTheirRoute() {
        var policy = WakePolicy()
        let result = policy.burstStarted(
            b1, in: ch1, speaker: W.alice,
            candidates: WakeRoute.allCases.enumerated().map {
                W.candidate(MemberID("m\($0.offset)"), reachable: true, route: $0.element)
            }, now: W.at(0))
        #expect(result.decisions.isEmpty)
    }

    @Test func aMemberWithNoRouteExpiresAtOnceAndIsNotWokenLaterInTheBurst() {
        var policy = WakePolicy()
        let first = policy.burstStarted(
            b1, in: ch1, speaker: W.alice, candidates: [W.candidate(W.bob, route: .none)],
            now: W.at(0))
        #expect(first.decisions == [.expired(member: W.bob, burst: b1, reason: .noRoute)])
        // Bob's device connects its Local Push extension during the burst: the wake was already given up on.
        let again = policy.burstStarted(
            b1, in: ch1, speaker: W.alice, candidates: [W.candidate(W.bob, route: .localPush)],
            now: W.at(500))
        #expect(again.decisions.isEmpty)
    }

    @Test func startingTheSameBurstAgainDecidesOnlyMembersNotDecidedYet() {
        var policy = WakePolicy()
        let first = policy.burstStarted(
            b1, in: ch1, speaker: W.alice, candidates: [W.candidate(W.alice), W.candidate(W.bob)],
            now: W.at(0))
        #expect(first.decisions.map(\.decidedMember) == [W.bob])
        let second = policy.burstStarted(
            b1, in: ch1, speaker: W.alice,
            candidates: [
                W.candidate(W.alice), W.candidate(W.bob), W.candidate(W.carol, route: .apns),
                W.candidate(W.dave, route: .none),
            ], now: W.at(100))
        #expect(second.ended == nil)
        #expect(
            second.decisions == [
                W.wake(W.carol, ch1, b1, .apns, deadline: W.at(2000)),
                .expired(member: W.dave, burst: b1, reason: .noRoute),
            ])
        let third = policy.burstStarted(
            b1, in: ch1, speaker: W.alice,
            candidates: [
                W.candidate(W.bob), W.candidate(W.carol), W.candidate(W.dave),
            ], now: W.at(200))
        #expect(third.decisions.isEmpty)
        #expect(third.ended == nil)
        #expect(policy.burst(in: ch1) == b1)
    }

    @Test func aMemberListedTwiceIsDecidedOnce() {
        var policy = WakePolicy()
        let result = policy.burstStarted(
            b1, in: ch1, speaker: W.alice,
            candidates: [
                W.candidate(W.bob), W.candidate(W.bob, route: .apns), W.candidate(W.bob, route: .none),
            ], now: W.at(0))
        #expect(result.decisions == [W.wake(W.bob, ch1, b1, .localPush, deadline: W.at(2000))])
    }

    @Test func aMemberReachableAtFirstIsWokenOnceItIsNoLonger() {
        var policy = WakePolicy()
        let first = policy.burstStarted(
            b1, in: ch1, speaker: W.alice, candidates: [W.candidate(W.bob, reachable: true)],
            now: W.at(0))
        #expect(first.decisions.isEmpty)
        let second = policy.burstStarted(
            b1, in: ch1, speaker: W.alice, candidates: [W.candidate(W.bob)], now: W.at(300))
        #expect(second.decisions.map(\.decidedMember) == [W.bob])
        let third = policy.burstStarted(b1, in: ch1, speaker: W.alice, candidates: [W.candidate(W.bob)], now: W.at(600))
        #expect(third.decisions.isEmpty)
    }

    @Test func theDeadlineIsTheBurstStartPlusTheDefaultTwoSeconds() throws {
        var policy = WakePolicy()
        #expect(policy.configuration.maxDelay == .seconds(2))
        let result = policy.burstStarted(
            b1, in: ch1, speaker: W.alice, candidates: [W.candidate(W.bob)], now: W.at(12_345))
        let order = try #require(result.decisions.first?.order)
        #expect(order.deadline == W.at(14_345))
    }

    @Test(arguments: [1, 250, 2000, 60_000])
    func theDeadlineFollowsTheConfiguredMaxDelay(ms: Int) throws {
        var policy = WakePolicy(configuration: WakeConfiguration(maxDelay: .milliseconds(ms)))
        let result = policy.burstStarted(
            b1, in: ch1, speaker: W.alice,
            candidates: [W.candidate(W.bob), W.candidate(W.carol, route: .apns)], now: W.at(7000))
        #expect(result.decisions.compactMap(\.order).map(\.deadline) == [W.at(7000 + ms), W.at(7000 + ms)])
    }

    @Test func membersDecidedLaterInABurstKeepTheBurstsDeadline() throws {
        var policy = WakePolicy()
        _ = policy.burstStarted(b1, in: ch1, speaker: W.alice, candidates: [W.candidate(W.bob)], now: W.at(1000))
        // Carol joins 1.5 s into the burst: her wake is due when the burst's wakes are, not 2 s from now.
        let late = policy.burstStarted(
            b1, in: ch1, speaker: W.alice, candidates: [W.candidate(W.carol)], now: W.at(2500))
        #expect(late.decisions == [W.wake(W.carol, ch1, b1, .localPush, deadline: W.at(3000))])
    }

    @Test func theDeadlineSaturatesAtTheEndOfTime() throws {
        var policy = WakePolicy()
        let now = PTTInstant(nanoseconds: .max - 1)
        let result = policy.burstStarted(b1, in: ch1, speaker: W.alice, candidates: [W.candidate(W.bob)], now: now)
        #expect(try #require(result.decisions.first?.order).deadline == PTTInstant(nanoseconds: .max))
    }

    @Test func aNewBurstInTheChannelEndsTheOldOneAndEveryoneIsEligibleAgain() {
        var policy = WakePolicy()
        let candidates = [W.candidate(W.alice), W.candidate(W.bob), W.candidate(W.carol, route: .none)]
        let first = policy.burstStarted(b1, in: ch1, speaker: W.alice, candidates: candidates, now: W.at(0))
        #expect(first.decisions.map(\.decidedMember) == [W.bob, W.carol])
        // Bob answers: a new burst, and alice (no longer the speaker) needs a wake now.
        let second = policy.burstStarted(b2, in: ch1, speaker: W.bob, candidates: candidates, now: W.at(5000))
        #expect(second.ended == b1)
        #expect(
            second.decisions == [
                W.wake(W.alice, ch1, b2, .localPush, deadline: W.at(7000)),
                .expired(member: W.carol, burst: b2, reason: .noRoute),
            ])
        #expect(policy.burst(in: ch1) == b2)
        // The old burst is over: ending the channel now ends b2, once.
        #expect(policy.burstEnded(in: ch1) == b2)
        #expect(policy.burstEnded(in: ch1) == nil)
    }

    @Test func burstsInDifferentChannelsAreIndependent() {
        var policy = WakePolicy()
        let a = policy.burstStarted(
            b1, in: ch1, speaker: W.alice, candidates: [W.candidate(W.bob), W.candidate(W.carol)],
            now: W.at(0))
        let b = policy.burstStarted(
            b2, in: ch2, speaker: W.carol, candidates: [W.candidate(W.bob), W.candidate(W.alice)],
            now: W.at(100))
        #expect(a.ended == nil)
        #expect(b.ended == nil, "a burst in another channel ends nothing")
        #expect(a.decisions.map(\.decidedMember) == [W.bob, W.carol])
        #expect(
            b.decisions == [
                W.wake(W.bob, ch2, b2, .localPush, deadline: W.at(2100)),
                W.wake(W.alice, ch2, b2, .localPush, deadline: W.at(2100)),
            ])
        #expect(policy.burstEnded(in: ch1) == b1)
        #expect(policy.burst(in: ch1) == nil)
        #expect(policy.burst(in: ch2) == b2)
        // Channel 2's burst still remembers who was decided.
        #expect(
            policy.burstStarted(b2, in: ch2, speaker: W.carol, candidates: [W.candidate(W.bob)], now: W.at(200))
                .decisions.isEmpty)
    }

    @Test func burstEndedReturnsTheBurstOnceThenNil() {
        var policy = WakePolicy()
        #expect(policy.burstEnded(in: ch1) == nil)
        _ = policy.burstStarted(b1, in: ch1, speaker: W.alice, candidates: [], now: W.at(0))
        #expect(policy.burst(in: ch1) == b1, "a burst with nobody to wake still runs")
        #expect(policy.burstEnded(in: ch1) == b1)
        #expect(policy.burstEnded(in: ch1) == nil)
        #expect(policy.burst(in: ch1) == nil)
    }

    @Test func afterABurstEndsTheNextBurstWakesEveryoneAgainAndEndsNothing() {
        var policy = WakePolicy()
        _ = policy.burstStarted(b1, in: ch1, speaker: W.alice, candidates: [W.candidate(W.bob)], now: W.at(0))
        _ = policy.burstEnded(in: ch1)
        let next = policy.burstStarted(b2, in: ch1, speaker: W.alice, candidates: [W.candidate(W.bob)], now: W.at(3000))
        #expect(next.ended == nil)
        #expect(next.decisions == [W.wake(W.bob, ch1, b2, .localPush, deadline: W.at(5000))])
    }

    @Test func aBurstStartedWithNoCandidatesStillDecidesLaterJoiners() {
        var policy = WakePolicy()
        #expect(policy.burstStarted(b1, in: ch1, speaker: W.alice, candidates: [], now: W.at(0)).decisions.isEmpty)
        let later = policy.burstStarted(
            b1, in: ch1, speaker: W.alice, candidates: [W.candidate(W.dave, route: .apns)],
            now: W.at(1000))
        #expect(later.decisions == [W.wake(W.dave, ch1, b1, .apns, deadline: W.at(2000))])
    }

    @Test func thePolicyExposesItsConfiguration() {
        let configuration = WakeConfiguration(maxDelay: .milliseconds(750), outboxCapacity: 3)
        #expect(WakePolicy(configuration: configuration).configuration == configuration)
    }
}
