import Foundation
import Testing

@testable import PTTCore

@Suite struct PushReasonTests {
    @Test func plainReasonsAreKeptAndAnythingElseIsOther() {
        #expect(PushReason.bounded("") == "")
        #expect(PushReason.bounded("BadDeviceToken") == "BadDeviceToken")
        #expect(PushReason.bounded("no-route") == "no-route")
        #expect(PushReason.bounded("HTTP 500") == "HTTP 500")
        #expect(PushReason.bounded(String(repeating: "a", count: 41)) == "other")
        #expect(PushReason.bounded("write: EPIPE") == "other")
        #expect(PushReason.bounded("Ünregistered") == "other")
        #expect(PushReason.bounded("a\nb") == "other")
    }
}
