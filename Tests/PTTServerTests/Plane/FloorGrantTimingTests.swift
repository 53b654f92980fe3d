import NIOCore
import PTTProtocol
import Prometheus
import ServerTestSupport
import TestSupport
import Testing

@testable import PTTServer

/// `ptt_floor_grant_seconds`: the server's share of a grant given at once, from the read of the ask to the write of
/// its `floor-granted`; a queued or denied ask is not timed.
@Suite("Floor grant timing")
struct FloorGrantTimingTests {
    private static func sample(_ text: String, _ name: String, _ request: String) -> Double? {
        let line = text.split(separator: "\n").first {
            $0.hasPrefix("ptt_floor_grant_seconds_\(name){") && $0.contains(#"request="\#(request)""#)
        }
        return line?.split(separator: " ").last.flatMap { Double($0) }
    }

    private static func count(_ text: String, _ request: String) -> Double? { sample(text, "count", request) }

    @Test(
        "a grant answering its ask is observed with the time between them; an ask queued, denied or answered by another frame is not"
    )
    func observedOnlyForAGrantAtOnce() {
        let registry = PrometheusCollectorRegistry()
        let timing = FloorAskTiming(FloorGrantHistograms(registry))
        let start = NIODeadline.uptimeNanoseconds(1_000_000_000)
        let info = ChannelInfo(id: "c", name: "deck")
        func granted(_ re: Int?) -> ControlMessage { .floorGranted(FloorGranted(re: re, channel: info, talkTimeMs: 1)) }

        timing.read(.floorRequest(FloorCommand(id: 5, channel: "deck")), at: start)
        timing.writing(granted(4), at: start + .milliseconds(1))
        timing.writing(granted(5), at: start + .milliseconds(3))
        timing.writing(granted(5), at: start + .milliseconds(9))  // answered already: not twice
        var text = String(decoding: registry.emitToBuffer(), as: UTF8.self)
        #expect(Self.count(text, "floor-request") == 1)
        #expect(Self.sample(text, "sum", "floor-request").map { abs($0 - 0.003) < 1e-9 } == true, "\(text)")
        #expect(text.contains(#"ptt_floor_grant_seconds_bucket{request="floor-request",le="0.002"} 0"#), "\(text)")
        #expect(text.contains(#"ptt_floor_grant_seconds_bucket{request="floor-request",le="0.005"} 1"#), "\(text)")

        // Queued, then granted later: the wait in the queue is not the server's share.
        timing.read(.floorRequest(FloorCommand(id: 6, channel: "deck")), at: start)
        timing.writing(.floorQueued(FloorQueued(re: 6, channel: info, position: 1)), at: start)
        timing.writing(granted(6), at: start + .seconds(2))
        // An emergency denied (its floor decision comes without `re`), then one refused (`error` with `re`).
        timing.read(.emergency(EmergencyRequest(id: 7, channel: "deck")), at: start)
        timing.writing(.floorDenied(FloorDenied(channel: info, cause: .receiveOnly)), at: start)
        timing.writing(granted(nil), at: start + .seconds(2))
        timing.read(.emergency(EmergencyRequest(id: 9, channel: "deck")), at: start)
        timing.writing(.error(ErrorFrame(re: 9, code: .notPermitted, message: "no right")), at: start)
        timing.writing(granted(nil), at: start + .seconds(2))
        // A floor request without an id: nothing to tell its answer by.
        timing.read(.floorRequest(FloorCommand(channel: "deck")), at: start)
        timing.writing(granted(nil), at: start + .seconds(2))
        text = String(decoding: registry.emitToBuffer(), as: UTF8.self)
        #expect(Self.count(text, "floor-request") == 1)
        #expect(Self.count(text, "emergency") == 0)

        // An emergency (named by the channel's UUID here) is answered by the grant without `re` on its channel.
        timing.read(.emergency(EmergencyRequest(channel: "c")), at: start)
        let bridge = ChannelInfo(id: "b", name: "bridge")
        timing.writing(.floorGranted(FloorGranted(channel: bridge, talkTimeMs: 1)), at: start + .milliseconds(1))
        timing.writing(granted(3), at: start + .milliseconds(1))
        timing.writing(granted(nil), at: start + .microseconds(400))
        text = String(decoding: registry.emitToBuffer(), as: UTF8.self)
        #expect(Self.count(text, "emergency") == 1)
        #expect(text.contains(#"ptt_floor_grant_seconds_bucket{request="emergency",le="0.0005"} 1"#), "\(text)")

        // An emergency without an id, refused: its error has no `re`, and a later hand-off is not its grant.
        timing.read(.emergency(EmergencyRequest(channel: "deck")), at: start)
        timing.writing(.error(ErrorFrame(code: .notPermitted, message: "no right")), at: start)
        timing.writing(granted(nil), at: start + .seconds(5))
        text = String(decoding: registry.emitToBuffer(), as: UTF8.self)
        #expect(Self.count(text, "emergency") == 1)
    }

    @Test(
        "over the network: a request granted at once and an emergency are timed, a queued request granted later is not")
    func overTheNetwork() async throws {
        try await FloorOverNetworkTests.Crew.with { crew in
            #expect(try await crew.alice.request(.floorRequest(FloorCommand(channel: "deck"))).type == "floor-granted")
            #expect(try await crew.bob.request(.floorRequest(FloorCommand(channel: "deck"))).type == "floor-queued")
            crew.alice.client.send(.floorRelease(FloorCommand(channel: "deck")))
            _ = try await crew.bob.next("floor-granted")
            var text = try await crew.server.admin.getText("/metrics")
            #expect(Self.count(text, "floor-request") == 1, "\(text)")
            #expect((Self.sample(text, "sum", "floor-request") ?? 0) > 0)

            _ =
                try await crew.server.admin.put(
                    "/api/users/carol/rights", body: UserRightsRequest(rights: [.emergency])) as UserStatus
            let declared = try await crew.carol.request(.emergency(EmergencyRequest(channel: "deck")))
            #expect(declared.type == "emergency-declared")
            _ = try await crew.carol.next("floor-granted")
            text = try await crew.server.admin.getText("/metrics")
            #expect(Self.count(text, "emergency") == 1, "\(text)")
            #expect(Self.count(text, "floor-request") == 1)
        }
    }
}
