import NIOConcurrencyHelpers
import NIOCore
import PTTCore
import RTP
import Testing

@testable import PTTRelay

/// A holder's `floor-release` travels over TCP to the plane's thread, its last packets over UDP to the relay's: the
/// release can overtake them. For ``FloorControl/releaseGrace`` after a release the relay still forwards the former
/// holder's packets, as the end of its burst, and reports them as no talking (no implicit floor request, no wake).
@Suite("The relay after a release")
struct ReleaseGraceRelayTests {
    typealias Harness = MediaRelayHandlerTests.Harness

    /// The reports the relay makes, in order.
    static func reports(of h: Harness) -> NIOLockedValueBox<[RelayReport]> {
        let box = NIOLockedValueBox<[RelayReport]>([])
        h.relay.report = { report in box.withLockedValue { $0.append(report) } }
        return box
    }

    static func talking(_ box: NIOLockedValueBox<[RelayReport]>) -> [MemberID] {
        box.withLockedValue {
            $0.compactMap { report in
                if case .heard(let member, _, talking: true, _) = report { member } else { nil }
            }
        }
    }

    @Test("packets the release overtook are relayed as the end of the burst, asking for nothing")
    func lateAfterRelease() throws {
        let h = try Harness(implicitFloorRequest: true)
        try h.join(1, 2)
        let box = Self.reports(of: h)
        h.apply(.floor(h.id, holder: MemberID("m1")))
        try h.talk(1, sequence: 1)
        let first = try h.sent()
        #expect(first.count == 1)
        h.advance(.milliseconds(300))  // past the relay's report interval
        box.withLockedValue { $0.removeAll() }
        // The release is applied before the last two packets are read.
        h.apply(.released(h.id, by: MemberID("m1"), grace: FloorControl.releaseGrace))
        try h.talk(1, sequence: 2)
        h.advance(.milliseconds(20))
        try h.talk(1, sequence: 3)
        let late = try h.sent()
        #expect(late.map(\.to) == [try h.address(2), try h.address(2)], "both late packets reach the listener")
        #expect(late.map(\.header.marker) == [false, false], "the same burst: no new burst's marker")
        #expect(
            late.map(\.header.timestamp) == [first[0].header.timestamp &+ 960, first[0].header.timestamp &+ 1920],
            "the burst's timeline goes on")
        #expect(Self.talking(box).isEmpty, "late audio is no implicit floor request")
        #expect(h.counter(#"dropped{reason="not-floor-holder"}"#) == 0)

        // After the grace the former holder's audio is an implicit request again: held, reported as talking.
        h.advance(.nanoseconds(FloorControl.releaseGrace.nanoseconds))
        try h.talk(1, sequence: 4)
        #expect(try h.sent().isEmpty)
        #expect(Self.talking(box) == [MemberID("m1")])
    }

    @Test("a new holder ends the grace at once: the former holder's packets are dropped, the new burst is marked")
    func newHolderEndsGrace() throws {
        let h = try Harness()
        try h.join(1, 2)
        h.apply(.floor(h.id, holder: MemberID("m1")))
        try h.talk(1, sequence: 1)
        h.apply(.released(h.id, by: MemberID("m1"), grace: FloorControl.releaseGrace))
        h.apply(.floor(h.id, holder: MemberID("m2")))
        try h.talk(1, sequence: 2)
        #expect(try h.sent().count == 1, "only the packet before the release")
        #expect(h.counter(#"dropped{reason="not-floor-holder"}"#) == 1)
        try h.talk(2, sequence: 1)
        #expect(try h.sent().map(\.header.marker) == [true])
        // The same member taking the floor again right after its release starts a new burst too.
        h.apply(.released(h.id, by: MemberID("m2"), grace: FloorControl.releaseGrace))
        h.apply(.floor(h.id, holder: MemberID("m2")))
        try h.talk(2, sequence: 2)
        #expect(try h.sent().map(\.header.marker) == [true])
    }

    @Test("a revoke (the floor set idle) leaves no grace")
    func revokeHasNoGrace() throws {
        let h = try Harness()
        try h.join(1, 2)
        h.apply(.floor(h.id, holder: MemberID("m1")))
        h.apply(.floor(h.id, holder: nil))
        try h.talk(1, sequence: 1)
        #expect(try h.sent().isEmpty)
    }

    @Test("a recorded burst takes the late packets and ends with the grace")
    func recordingEndsWithGrace() throws {
        let (h, sink) = try RecordingRelayTests.harness()
        try h.join(1, 2)
        h.apply(.floor(h.id, holder: MemberID("m1")))
        h.apply(.record(h.id, key: 9))
        try CatchUpRelayTests.talk(h, 5)
        h.apply(.released(h.id, by: MemberID("m1"), grace: FloorControl.releaseGrace))
        try CatchUpRelayTests.talk(h, 2, first: 5)
        #expect(sink.ended.isEmpty, "the burst is still open during the grace")
        h.advance(.nanoseconds(FloorControl.releaseGrace.nanoseconds))
        #expect(sink.ended == [9])
        #expect(sink.packets.count == 7, "the late packets are recorded with the burst")
        #expect(h.relay.keeping.buffers.isEmpty)
    }

    @Test("a woken member heard during the grace gets no catch-up of the released burst")
    func noCatchUpDuringGrace() throws {
        let h = try Harness(catchUp: CatchUpRelayTests.keeping())
        try h.join(1, 2)
        h.apply(.join(h.config(3)))  // woken, not heard yet
        h.apply(.floor(h.id, holder: MemberID("m1")))
        h.apply(.woken(h.id, [MemberID("m3")]))
        try CatchUpRelayTests.talk(h, 5)
        h.apply(.released(h.id, by: MemberID("m1"), grace: FloorControl.releaseGrace))
        _ = try h.sent()
        try CatchUpRelayTests.keepAlive(h, 3)
        h.advance(.milliseconds(10))
        #expect(try h.sent().isEmpty, "nothing played to the member that came after the release")
    }

    @Test(
        "the rule: only the former holder, only on an idle floor, only before the grace ends",
        arguments: [true, false])
    func rule(implicit: Bool) {
        let rules = RelayRules(holdsForImplicitRequest: implicit)
        let now = NIODeadline.uptimeNanoseconds(10_000_000_000)
        let late = LateAudio(ssrc: 1, until: now + .milliseconds(1))
        let (a, b) = (RelayRulesTests.member(1), RelayRulesTests.member(2))
        func decide(_ sender: RelayMemberConfig, holder: UInt32?, at time: NIODeadline) -> RelayDecision {
            rules.decide(
                payloadType: 111, validOpus: true, sender: sender, holderSSRC: holder, hold: nil, lateAudio: late,
                now: time)
        }
        let idle: RelayDecision = implicit ? .hold(startsHold: true) : .drop(.notFloorHolder)
        #expect(decide(a, holder: nil, at: now) == .forwardLate)
        #expect(decide(a, holder: nil, at: late.until) == idle, "the grace is over")
        #expect(decide(b, holder: nil, at: now) == idle, "someone else")
        #expect(decide(a, holder: 2, at: now) == .drop(.notFloorHolder), "someone else holds the floor")
        #expect(
            rules.decide(
                payloadType: 0, validOpus: true, sender: a, holderSSRC: nil, hold: nil, lateAudio: late, now: now)
                == .drop(.payloadType), "late audio passes the same checks")
    }
}
