import Foundation
import Testing

@testable import PTTCore

@Suite("Directory: clock")
struct DirectoryClockTests {
    @Test func addingAPositiveDurationMovesForward() {
        #expect(PTTInstant(nanoseconds: 1_000) + .nanoseconds(500) == PTTInstant(nanoseconds: 1_500))
        #expect(PTTInstant.zero + .milliseconds(3) == PTTInstant(nanoseconds: 3_000_000))
        #expect(PTTInstant(nanoseconds: 7) + .seconds(2) == PTTInstant(nanoseconds: 2_000_000_007))
        #expect(PTTInstant(nanoseconds: 7) + .zero == PTTInstant(nanoseconds: 7))
    }

    @Test func addingANegativeDurationMovesBack() {
        #expect(PTTInstant(nanoseconds: 5_000_000) + .milliseconds(-2) == PTTInstant(nanoseconds: 3_000_000))
        #expect(PTTInstant(nanoseconds: 1_000) + .nanoseconds(-1_000) == .zero)
    }

    @Test func addingANegativeDurationSaturatesAtZero() {
        #expect(PTTInstant(nanoseconds: 500) + .nanoseconds(-1_000) == .zero)
        #expect(PTTInstant(nanoseconds: 999_999) + .milliseconds(-1) == .zero)
        #expect(PTTInstant.zero + .seconds(-1) == .zero)
        #expect(PTTInstant(nanoseconds: 1_000) + .seconds(-1_000_000) == .zero)
    }

    @Test func sinceIsTheElapsedTime() {
        let earlier = PTTInstant(nanoseconds: 1_000_000)
        let later = PTTInstant(nanoseconds: 4_500_000)
        #expect(later.since(earlier) == .microseconds(3_500))
        #expect((earlier + .seconds(3)).since(earlier) == .seconds(3))
    }

    @Test func sinceIsZeroWhenEarlierIsLaterOrEqual() {
        let a = PTTInstant(nanoseconds: 1_000)
        let b = PTTInstant(nanoseconds: 2_000)
        #expect(a.since(b) == .zero)
        #expect(a.since(a) == .zero)
        #expect(PTTInstant.zero.since(PTTInstant(nanoseconds: .max)) == .zero)
    }

    @Test func instantsAreOrderedByNanoseconds() {
        #expect(PTTInstant(nanoseconds: 1) < PTTInstant(nanoseconds: 2))
        #expect(!(PTTInstant(nanoseconds: 2) < PTTInstant(nanoseconds: 2)))
        #expect(PTTInstant.zero < PTTInstant(nanoseconds: 1))
        #expect(PTTInstant(nanoseconds: 1_500_000_000).description == "t+1.5s")
    }

    @Test func durationMillisecondsRoundsWholeMilliseconds() {
        #expect(Duration.seconds(2).milliseconds == 2_000)
        #expect(Duration.milliseconds(1_234).milliseconds == 1_234)
        #expect(Duration.microseconds(1_999).milliseconds == 1)
        #expect(Duration.nanoseconds(999_999).milliseconds == 0)
        #expect(Duration.zero.milliseconds == 0)
        #expect(Duration.milliseconds(-3).milliseconds == -3)
        #expect(Duration.seconds(1.5).milliseconds == 1_500)
    }

    @Test func durationNanosecondsIncludesTheFraction() {
        #expect(Duration.seconds(3).nanoseconds == 3_000_000_000)
        #expect((Duration.seconds(2) + .nanoseconds(17)).nanoseconds == 2_000_000_017)
        #expect(Duration.nanoseconds(-1).nanoseconds == -1)
        #expect((Duration.seconds(-1) - .milliseconds(500)).nanoseconds == -1_500_000_000)
    }

    @Test func durationNanosecondsSaturatesOnOverflow() {
        #expect(Duration.seconds(Int64.max).nanoseconds == .max)
        #expect(Duration.seconds(Int64.min).nanoseconds == .min)
    }
}
