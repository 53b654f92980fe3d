import PTTAdmin
import PTTProtocol
import Testing

/// The pure pieces behind `pttctl announce --ttl`, `pttctl wakes` and the LAST WAKE column of `pttctl channel`.
@Suite("WakeFormatting: TTLs, last wake cells, wake totals")
struct WakeFormattingTests {
    @Test(
        "every TTL form gives seconds",
        arguments: [
            ("90", 90), ("90s", 90), ("15m", 900), ("2h", 7_200), ("7d", 604_800),
            ("1", 1), ("1s", 1), ("1m", 60), ("1h", 3_600), ("1d", 86_400), ("007s", 7),
        ])
    func ttlForms(text: String, seconds: Int) throws {
        #expect(try parseTTL(text) == seconds)
    }

    @Test("the bounds are 1 s and 30 d, in every unit")
    func ttlBounds() throws {
        #expect(maximumAnnouncementTTL == 2_592_000)
        #expect(try parseTTL("1") == 1)
        #expect(try parseTTL("30d") == 2_592_000)
        #expect(try parseTTL("720h") == 2_592_000)
        #expect(try parseTTL("43200m") == 2_592_000)
        #expect(try parseTTL("2592000s") == 2_592_000)
        #expect(try parseTTL("2592000") == 2_592_000)
        for text in ["0", "0s", "0m", "0d", "31d", "721h", "43201m", "2592001", "2592001s"] {
            #expect(throws: TTLError.outOfRange(text)) { try parseTTL(text) }
        }
    }

    @Test("numbers too large for Int, or whose seconds overflow, are out of range, not a crash")
    func ttlOverflow() {
        #expect(throws: TTLError.outOfRange("99999999999999999999")) { try parseTTL("99999999999999999999") }
        #expect(throws: TTLError.outOfRange("9223372036854775807d")) { try parseTTL("9223372036854775807d") }
    }

    @Test(
        "anything else is not a duration",
        arguments: [
            "", "1x", "-5", "1.5h", "s", "d", "+5", " 90", "90 ", "15 m", "1h30m", "2H", "15min", "1e3", "٣s", "ms",
        ])
    func ttlRejected(text: String) {
        #expect(throws: TTLError.notADuration(text)) { try parseTTL(text) }
    }

    @Test("TTL errors say what is accepted")
    func ttlMessages() {
        #expect(
            TTLError.notADuration("1x").description
                == "'1x' is not a duration: use whole seconds (90 or 90s), minutes (15m), hours (2h) or days (7d)")
        #expect(TTLError.outOfRange("31d").description == "'31d' is out of range: use 1 s to 30 d (2592000 s)")
    }

    @Test(
        "LAST WAKE cells",
        arguments: [
            (LastWakeStatus?.none, "-"),
            (
                LastWakeStatus(at: "2026-11-21T08:00:00.000Z", kind: .wake, transport: .localPush, outcome: .sent),
                "sent local-push"
            ),
            (
                LastWakeStatus(
                    at: "2026-11-21T08:00:00.000Z", kind: .wake, transport: .localPush, outcome: .acknowledged,
                    burst: "b1"),
                "acknowledged local-push"
            ),
            (
                LastWakeStatus(
                    at: "2026-11-21T08:00:00.000Z", kind: .wake, transport: .unreachable, outcome: .expired,
                    reason: "no-route"),
                "expired none (no-route)"
            ),
            (
                LastWakeStatus(
                    at: "2026-11-21T08:00:00.000Z", kind: .wake, transport: .apns, outcome: .rejected,
                    reason: "Unregistered"),
                "rejected apns (Unregistered)"
            ),
            (
                LastWakeStatus(
                    at: "2026-11-21T08:00:00.000Z", kind: .wake, transport: .apns, outcome: .failed,
                    reason: "backoff"),
                "failed apns (backoff)"
            ),
            (
                LastWakeStatus(
                    at: "2026-11-21T08:00:00.000Z", kind: .wake, transport: .apns, outcome: .sent, reason: ""),
                "sent apns"
            ),
            (
                LastWakeStatus(at: "2026-11-21T08:00:00.000Z", kind: .leave, transport: .apns, outcome: .sent),
                "leave: sent apns"
            ),
            (
                LastWakeStatus(
                    at: "2026-11-21T08:00:00.000Z", kind: .leave, transport: .unreachable, outcome: .expired,
                    reason: "no-route"),
                "leave: expired none (no-route)"
            ),
        ])
    func lastWake(status: LastWakeStatus?, cell: String) {
        #expect(lastWakeCell(status) == cell)
    }

    @Test("ages for people")
    func ages() {
        #expect(describeAge(seconds: -3) == "0 s")
        #expect(describeAge(seconds: 0) == "0 s")
        #expect(describeAge(seconds: 119) == "119 s")
        #expect(describeAge(seconds: 120) == "2 min")
        #expect(describeAge(seconds: 2_520) == "42 min")
        #expect(describeAge(seconds: 7_199) == "119 min")
        #expect(describeAge(seconds: 7_200) == "2 h")
    }

    @Test("the summary above the wakes table")
    func summary() {
        let idle = WakeTotals(
            since: "2026-11-21T08:00:00.000Z", counts: [], apnsConfigured: false, apnsEndpoint: nil,
            apnsBackoffUntil: nil, apnsTokenAgeSeconds: nil, storedAnnouncements: 0, pending: 0)
        #expect(
            wakeSummaryLines(idle) == [
                "counting since 2026-11-21T08:00:00.000Z",
                "APNs: not configured",
                "stored announcements: 0, pending wakes: 0",
            ])
        var busy = idle
        busy.apnsConfigured = true
        busy.apnsEndpoint = "https://api.sandbox.push.apple.com"
        busy.storedAnnouncements = 3
        busy.pending = 1
        #expect(
            wakeSummaryLines(busy)[1] == "APNs: configured (https://api.sandbox.push.apple.com), no provider token yet")
        busy.apnsTokenAgeSeconds = 2_520
        busy.apnsBackoffUntil = "2026-11-21T08:05:00.000Z"
        #expect(
            wakeSummaryLines(busy) == [
                "counting since 2026-11-21T08:00:00.000Z",
                "APNs: configured (https://api.sandbox.push.apple.com), provider token 42 min old, backing off until 2026-11-21T08:05:00.000Z",
                "stored announcements: 3, pending wakes: 1",
            ])
    }

    @Test("wake count rows are sorted by kind, transport, outcome, reason")
    func rows() {
        let counts = [
            WakeCount(kind: .wake, transport: .localPush, outcome: .sent, reason: "", count: 5),
            WakeCount(kind: .wake, transport: .apns, outcome: .rejected, reason: "Unregistered", count: 1),
            WakeCount(kind: .announce, transport: .localPush, outcome: .acknowledged, reason: "", count: 2),
            WakeCount(kind: .wake, transport: .apns, outcome: .rejected, reason: "BadDeviceToken", count: 4),
            WakeCount(kind: .leave, transport: .unreachable, outcome: .expired, reason: "no-route", count: 3),
            WakeCount(kind: .wake, transport: .apns, outcome: .failed, reason: "backoff", count: 6),
        ]
        #expect(
            wakeCountRows(counts) == [
                ["announce", "local-push", "acknowledged", "-", "2"],
                ["leave", "none", "expired", "no-route", "3"],
                ["wake", "apns", "failed", "backoff", "6"],
                ["wake", "apns", "rejected", "BadDeviceToken", "4"],
                ["wake", "apns", "rejected", "Unregistered", "1"],
                ["wake", "local-push", "sent", "-", "5"],
            ])
        #expect(wakeCountRows([]).isEmpty)
    }
}
