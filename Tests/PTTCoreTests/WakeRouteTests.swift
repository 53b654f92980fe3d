import Foundation
import TestSupport
import Testing

@testable import PTTCore

@Suite("Wake routes, kinds and burst ids")
struct WakeRouteTests {
    @Test(arguments: [
        (true, true, true, WakeRoute.localPush),
        (true, true, false, .localPush),
        (true, false, true, .localPush),
        (true, false, false, .localPush),
        (false, true, true, .apns),
        (false, true, false, .none),
        (false, false, true, .none),
        (false, false, false, .none),
    ])
    func localPushFirstThenAPNsWithTokenAndCredentialsElseNone(
        local: Bool, token: Bool, apns: Bool, expected: WakeRoute
    ) {
        #expect(WakeRoute.choose(localPushConnected: local, hasPushToken: token, apnsConfigured: apns) == expected)
    }

    @Test func wireNamesAreStable() {
        #expect(WakeRoute.allCases.map(\.rawValue) == ["local-push", "apns", "none"])
        #expect(PushKind.allCases.map(\.rawValue) == ["wake", "leave", "announce"])
        #expect(PushOutcome.allCases.map(\.rawValue) == ["sent", "acknowledged", "expired", "rejected", "failed"])
        let expiries: [PushExpiry] = [.noRoute, .deadline, .burstEnded, .backoff, .overflow, .disconnected, .ttl]
        #expect(
            expiries.map(\.rawValue) == [
                "no-route", "deadline", "burst-ended", "backoff", "overflow", "disconnected", "ttl",
            ])
    }

    /// Yields the given values in turn.
    struct FixedGenerator: RandomNumberGenerator {
        var values: [UInt64]
        mutating func next() -> UInt64 { values.isEmpty ? 0 : values.removeFirst() }
    }

    @Test func randomBurstIDsAreSixteenLowercaseHexDigitsPaddedWithZeros() {
        var generator = FixedGenerator(values: [0, 0xAB, .max])
        #expect(BurstID.random(using: &generator).rawValue == "0000000000000000")
        #expect(BurstID.random(using: &generator).rawValue == "00000000000000ab")
        #expect(BurstID.random(using: &generator).rawValue == "ffffffffffffffff")
    }

    @Test func randomBurstIDsAreReproducibleWithASeedAndDistinct() {
        var first = SplitMix64(seed: 42)
        var second = SplitMix64(seed: 42)
        let a = (0..<200).map { _ in BurstID.random(using: &first) }
        let b = (0..<200).map { _ in BurstID.random(using: &second) }
        #expect(a == b)
        #expect(Set(a).count == 200)
        for id in a {
            #expect(id.rawValue.utf8.count == 16)
            #expect(id.rawValue.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }, "\(id)")
            #expect(id.description == id.rawValue)
        }
    }
}
