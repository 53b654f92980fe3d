import Foundation
import Testing

@testable import PTTCore

private typealias W = WakeFixture

@Suite("Wake ledger: counts and last outcomes")
struct WakeLedgerTests {
    private typealias Ledger = WakeLedger<PTTInstant>
    private typealias Key = Ledger.Key

    @Test func anEmptyLedgerCountsNothing() {
        let ledger = Ledger()
        #expect(ledger.counts.isEmpty)
        #expect(ledger.last.isEmpty)
        for kind in PushKind.allCases {
            for outcome in PushOutcome.allCases { #expect(ledger.total(kind, outcome) == 0) }
        }
    }

    @Test func countsAreKeptPerKindTransportOutcomeAndReason() {
        var ledger = Ledger()
        ledger.record(.wake, member: W.alice, transport: .localPush, outcome: .sent, at: W.at(1))
        ledger.record(.wake, member: W.bob, transport: .localPush, outcome: .sent, at: W.at(2))
        ledger.record(.wake, member: W.bob, transport: .apns, outcome: .sent, at: W.at(3))
        ledger.record(.wake, member: W.carol, transport: .none, outcome: .expired, reason: "no-route", at: W.at(4))
        ledger.record(.wake, member: W.carol, transport: .apns, outcome: .expired, reason: "deadline", at: W.at(5))
        ledger.record(.wake, member: W.carol, transport: .apns, outcome: .expired, reason: "deadline", at: W.at(6))
        ledger.record(
            .leave, member: W.dave, transport: .apns, outcome: .rejected, reason: "BadDeviceToken", at: W.at(7))
        ledger.record(.announce, member: W.dave, transport: .localPush, outcome: .sent, at: W.at(8))
        #expect(
            ledger.counts == [
                Key(kind: .wake, transport: .localPush, outcome: .sent, reason: ""): 2,
                Key(kind: .wake, transport: .apns, outcome: .sent, reason: ""): 1,
                Key(kind: .wake, transport: .none, outcome: .expired, reason: "no-route"): 1,
                Key(kind: .wake, transport: .apns, outcome: .expired, reason: "deadline"): 2,
                Key(kind: .leave, transport: .apns, outcome: .rejected, reason: "BadDeviceToken"): 1,
                Key(kind: .announce, transport: .localPush, outcome: .sent, reason: ""): 1,
            ])
    }

    @Test func totalsAddEveryTransportAndReasonOfAKindAndOutcome() {
        var ledger = Ledger()
        ledger.record(.wake, member: W.alice, transport: .localPush, outcome: .expired, reason: "deadline", at: W.at(1))
        ledger.record(.wake, member: W.alice, transport: .apns, outcome: .expired, reason: "backoff", at: W.at(1))
        ledger.record(.wake, member: W.alice, transport: .none, outcome: .expired, reason: "no-route", at: W.at(1))
        ledger.record(.wake, member: W.alice, transport: .apns, outcome: .sent, at: W.at(1))
        ledger.record(.leave, member: W.alice, transport: .apns, outcome: .expired, reason: "deadline", at: W.at(1))
        ledger.record(.announce, member: W.alice, transport: .apns, outcome: .expired, reason: "ttl", at: W.at(1))
        #expect(ledger.total(.wake, .expired) == 3)
        #expect(ledger.total(.wake, .sent) == 1)
        #expect(ledger.total(.leave, .expired) == 1)
        #expect(ledger.total(.announce, .expired) == 1)
        #expect(ledger.total(.announce, .sent) == 0)
        #expect(ledger.total(.wake, .acknowledged) == 0)
    }

    @Test func wakesAndLeavesBecomeTheMembersLastEntry() throws {
        var ledger = Ledger()
        let burst = BurstID("b1")
        ledger.record(.wake, member: W.alice, transport: .apns, outcome: .sent, burst: burst, at: W.at(10))
        var entry = try #require(ledger.last[W.alice])
        #expect(entry.at == W.at(10))
        #expect(entry.kind == .wake)
        #expect(entry.transport == .apns)
        #expect(entry.outcome == .sent)
        #expect(entry.reason == nil)
        #expect(entry.burst == burst)

        ledger.record(.wake, member: W.alice, transport: .apns, outcome: .acknowledged, burst: burst, at: W.at(20))
        entry = try #require(ledger.last[W.alice])
        #expect(entry.outcome == .acknowledged)
        #expect(entry.at == W.at(20))

        ledger.record(.leave, member: W.alice, transport: .localPush, outcome: .failed, reason: "refused", at: W.at(30))
        entry = try #require(ledger.last[W.alice])
        #expect(entry.kind == .leave)
        #expect(entry.transport == .localPush)
        #expect(entry.outcome == .failed)
        #expect(entry.reason == "refused")
        #expect(entry.burst == nil)
        #expect(ledger.last.count == 1)
    }

    @Test func announcementsAreCountedButNeverBecomeTheLastEntry() throws {
        var ledger = Ledger()
        ledger.record(.announce, member: W.bob, transport: .apns, outcome: .sent, at: W.at(1))
        #expect(ledger.last[W.bob] == nil)
        ledger.record(.wake, member: W.bob, transport: .none, outcome: .expired, reason: "no-route", at: W.at(2))
        ledger.record(.announce, member: W.bob, transport: .localPush, outcome: .acknowledged, at: W.at(3))
        let entry = try #require(ledger.last[W.bob])
        #expect(entry.kind == .wake)
        #expect(entry.at == W.at(2))
        #expect(ledger.total(.announce, .sent) + ledger.total(.announce, .acknowledged) == 2)
    }

    @Test func forgetDropsTheLastEntryButKeepsTheCounts() {
        var ledger = Ledger()
        ledger.record(.wake, member: W.alice, transport: .apns, outcome: .sent, at: W.at(1))
        ledger.record(.wake, member: W.bob, transport: .apns, outcome: .sent, at: W.at(1))
        ledger.forget(W.alice)
        #expect(ledger.last[W.alice] == nil)
        #expect(ledger.last[W.bob] != nil)
        #expect(ledger.total(.wake, .sent) == 2)
        ledger.forget(W.carol)  // never recorded: nothing happens
        #expect(ledger.last.count == 1)
    }

    @Test func keysSortByKindTransportOutcomeThenReason() {
        let keys = [
            Key(kind: .wake, transport: .apns, outcome: .sent, reason: ""),
            Key(kind: .announce, transport: .none, outcome: .sent, reason: ""),
            Key(kind: .wake, transport: .apns, outcome: .expired, reason: "deadline"),
            Key(kind: .wake, transport: .apns, outcome: .expired, reason: "backoff"),
            Key(kind: .leave, transport: .localPush, outcome: .failed, reason: ""),
            Key(kind: .wake, transport: .localPush, outcome: .sent, reason: ""),
        ]
        #expect(
            keys.sorted() == [
                Key(kind: .announce, transport: .none, outcome: .sent, reason: ""),
                Key(kind: .leave, transport: .localPush, outcome: .failed, reason: ""),
                Key(kind: .wake, transport: .apns, outcome: .expired, reason: "backoff"),
                Key(kind: .wake, transport: .apns, outcome: .expired, reason: "deadline"),
                Key(kind: .wake, transport: .apns, outcome: .sent, reason: ""),
                Key(kind: .wake, transport: .localPush, outcome: .sent, reason: ""),
            ])
    }

    @Test func theTimeTypeIsTheCallers() throws {
        var ledger = WakeLedger<Date>()
        ledger.record(.leave, member: W.alice, transport: .apns, outcome: .sent, at: W.date(5))
        #expect(try #require(ledger.last[W.alice]).at == W.date(5))
    }
}
