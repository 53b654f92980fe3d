import PTTProtocol
import Testing

@testable import PTTKit

@Suite("PTTEvent: server frames become typed events")
struct PTTEventTests {
    static let deck = ChannelInfo(id: "6f1c2a4e-8d3b-4c5a-9e7f-0a1b2c3d4e5f", name: "deck")
    static let ann = MemberInfo(id: "m1", name: "Ann", user: "ann", priority: 0, receiveOnly: false)

    @Test("floor events carry typed causes and durations; unknown causes are kept as the server spelled them")
    func floorEvents() {
        #expect(
            PTTEvent.from(.floorRevoked(FloorRevoked(channel: Self.deck, cause: .preempted)))
                == .floorRevoked(channel: Self.deck, cause: .preempted))
        #expect(
            PTTEvent.from(.floorRevoked(FloorRevoked(channel: Self.deck, cause: .unknown("solar-flare"))))
                == .floorRevoked(channel: Self.deck, cause: .unknown("solar-flare")))
        #expect(
            PTTEvent.from(.floorRevokePending(FloorRevokePending(channel: Self.deck, by: Self.ann, graceMs: 1500)))
                == .floorRevokePending(channel: Self.deck, by: Self.ann, grace: .milliseconds(1500)))
        #expect(
            PTTEvent.from(.floorGranted(FloorGranted(channel: Self.deck, talkTimeMs: 30_000)))
                == .floorGranted(channel: Self.deck, talkTime: .seconds(30)))
        #expect(
            PTTEvent.from(.floorTaken(FloorTaken(channel: Self.deck, member: Self.ann)))
                == .floorTaken(channel: Self.deck, speaker: Self.ann))
        #expect(FloorDenialCause(rawValue: "queue-full") == .queueFull)
        #expect(FloorDenialCause(rawValue: "queue-full").description == "queue-full")
        #expect(FloorDenialCause(rawValue: "new-cause") == .unknown("new-cause"))
    }

    @Test("a left frame ends the membership; announcements come typed; answers and heartbeats are not events")
    func otherFrames() {
        #expect(
            PTTEvent.from(.left(Left(channel: Self.deck, reason: .kicked)))
                == .membershipEnded(channel: Self.deck, reason: "kicked"))
        let announcement = PushFrame(
            id: "p1", pushType: PushFrame.alert, priority: 5, expiration: 0,
            payload: PushPayload(channel: Self.deck.id, sentAt: 1, announcement: "Muster at 10"))
        #expect(PTTEvent.from(.push(announcement)) == .announcement(channel: Self.deck.id, text: "Muster at 10"))
        #expect(PTTEvent.from(.heartbeat(Heartbeat(seq: 1))) == nil)
        #expect(PTTEvent.from(.floorReleased(FloorChannelEvent(channel: Self.deck))) == nil)
    }
}

@Suite("PinnedFingerprints: trusts the fingerprints it is given and nothing else")
struct PinnedFingerprintsTests {
    @Test("case and colons do not matter; any other fingerprint is refused as changed")
    func pinned() throws {
        let good = String(repeating: "ab", count: 32)
        let store = PinnedFingerprints([String(repeating: "AB:", count: 31) + "AB"])
        #expect(try store.verdict(for: "radio.local:7700", fingerprint: good) == .trusted)
        #expect(try store.verdict(for: "other:1", fingerprint: good) == .trusted)
        #expect(
            try store.verdict(for: "radio.local:7700", fingerprint: String(repeating: "cd", count: 32))
                == .changed(expected: good))
    }
}
