import APNsTestSupport
import Foundation
import NIOCore
import NIOPosix
import PTTProtocol
import Testing

@testable import APNs

/// Reading APNs answers: the cases `APNsOutcomeTests` leaves out.
@Suite struct APNsAnswerTests {
    @Test func twoHundredIsSentWhateverTheBody() {
        #expect(
            APNsOutcome.answer(status: 200, body: Array(#"{"reason":"BadTopic"}"#.utf8), apnsID: "id-1")
                == .sent(apnsID: "id-1"))
        #expect(APNsOutcome.answer(status: 200, body: [], apnsID: nil) == .sent(apnsID: nil))
    }

    @Test(arguments: [
        (400, #"{"reason":"BadTopic"}"#, "BadTopic"),
        (403, #"{"reason":"InvalidProviderToken","extra":[1,2]}"#, "InvalidProviderToken"),
        (410, "", "HTTP 410"),
        (400, #"{"reason":""}"#, "HTTP 400"),
        (410, #"{"timestamp":1760000000000}"#, "HTTP 410"),
        (400, #"{"reason":42}"#, "HTTP 400"),
        (500, #"["reason"]"#, "HTTP 500"),
        (502, "<html>bad gateway</html>", "HTTP 502"),
        (503, #"{"reason":"Shut"#, "HTTP 503"),
    ])
    func theReasonIsTheJSONReasonOrElseTheStatus(status: Int, body: String, reason: String) {
        #expect(
            APNsOutcome.answer(status: status, body: Array(body.utf8), apnsID: "ignored")
                == .rejected(status: status, reason: reason))
    }

    @Test(arguments: [
        (APNsOutcome.rejected(status: 410, reason: "HTTP 410"), APNsAction.removeToken),
        (.rejected(status: 400, reason: "BadTopic"), .none),
        (.rejected(status: 400, reason: "baddevicetoken"), .none),
        (.rejected(status: 403, reason: "HTTP 403"), .none),
        (.rejected(status: 404, reason: "BadPath"), .none),
        (.rejected(status: 413, reason: "PayloadTooLarge"), .none),
        (.rejected(status: 502, reason: "HTTP 502"), .none),
        (.rejected(status: 0, reason: "ProviderTokenUnavailable"), .none),
        (.rejected(status: 0, reason: "InvalidEndpoint"), .none),
        (.failed(reason: ""), .backOff),
    ])
    func theRestOfTheRules(outcome: APNsOutcome, action: APNsAction) {
        #expect(outcome.action == action)
    }

    @Test func theDescriptionNamesTheOutcome() {
        #expect(APNsOutcome.sent(apnsID: "abc").description == "sent (apns-id abc)")
        #expect(APNsOutcome.sent(apnsID: nil).description == "sent (apns-id none)")
        #expect(APNsOutcome.rejected(status: 410, reason: "Unregistered").description == "rejected 410 Unregistered")
        #expect(APNsOutcome.failed(reason: "timeout").description == "failed: timeout")
    }
}
