import APNsTestSupport
import Crypto
import Foundation
import Logging
import NIOCore
import NIOPosix
import PTTProtocol
import TestSupport
import Testing

@testable import APNs

/// When the shared provider token is replaced.
@Suite struct APNsTokenCacheTests {
    let start = Date(timeIntervalSince1970: 1_760_000_000)

    /// A cache driver that counts how many tokens were made.
    struct Driver {
        var cache = APNsTokenCache()
        var made = 0
        mutating func token(at minutes: Double, from start: Date) -> APNsProviderToken {
            cache.token(now: start.addingTimeInterval(minutes * 60)) { now in
                made += 1
                return APNsProviderToken(jwt: "token-\(made)", issuedAt: now)
            }
        }
    }

    @Test func aTokenIsReusedUntilFortyMinutesOldThenReplaced() {
        var driver = Driver()
        #expect(driver.cache.age(now: start) == nil)
        #expect(driver.token(at: 0, from: start).jwt == "token-1")
        #expect(driver.token(at: 20, from: start).jwt == "token-1")
        #expect(driver.token(at: 39.99, from: start).jwt == "token-1")
        #expect(driver.cache.age(now: start.addingTimeInterval(39 * 60)).map { abs($0 - 39 * 60) < 0.001 } == true)
        #expect(driver.token(at: 40, from: start).jwt == "token-2")
        #expect(driver.token(at: 79.99, from: start).jwt == "token-2")
        #expect(driver.token(at: 80, from: start).jwt == "token-3")
        #expect(driver.made == 3)
    }

    @Test func invalidationReplacesATokenAtLeastTwentyMinutesOld() {
        var driver = Driver()
        _ = driver.token(at: 0, from: start)
        driver.cache.invalidate(now: start.addingTimeInterval(25 * 60))
        #expect(driver.token(at: 25, from: start).jwt == "token-2")
        #expect(driver.token(at: 26, from: start).jwt == "token-2", "the new token is not invalidated")
        #expect(driver.made == 2)
    }

    @Test func invalidationKeepsATokenYoungerThanTwentyMinutesUntilItIsTwenty() {
        var driver = Driver()
        _ = driver.token(at: 0, from: start)
        driver.cache.invalidate(now: start.addingTimeInterval(5 * 60))
        #expect(driver.token(at: 5, from: start).jwt == "token-1")
        driver.cache.invalidate(now: start.addingTimeInterval(10 * 60))
        #expect(driver.token(at: 19.99, from: start).jwt == "token-1")
        #expect(driver.token(at: 20, from: start).jwt == "token-2")
        #expect(driver.token(at: 30, from: start).jwt == "token-2")
    }

    @Test func invalidatingBeforeAnyTokenDoesNothing() {
        var driver = Driver()
        driver.cache.invalidate(now: start)
        #expect(driver.token(at: 0, from: start).jwt == "token-1")
        #expect(driver.token(at: 21, from: start).jwt == "token-1")
    }

    @Test func aTokenFromTheFutureIsReplaced() {
        var driver = Driver()
        _ = driver.token(at: 10, from: start)
        #expect(driver.token(at: 9.5, from: start).jwt == "token-1", "within a minute of skew")
        #expect(driver.token(at: 8, from: start).jwt == "token-2", "the clock went back")
    }
}
