import NIOConcurrencyHelpers
import NIOCore
import PTTCore
import RTP
import Testing

@testable import PTTRelay

/// What the relay hands to the recorder, and replays of recorded bursts to one member (embedded channel, the
/// relay's clock moved by the test).
@Suite("Recording and replay on the relay")
struct RecordingRelayTests {
    typealias Harness = MediaRelayHandlerTests.Harness

    final class Sink: Sendable {
        let handOffs = NIOLockedValueBox<[RecordingHandOff]>([])
        var packets: [RecordedPacket] {
            handOffs.withLockedValue {
                $0.flatMap { handOff -> [RecordedPacket] in
                    if case .packets(_, let packets, _) = handOff { packets } else { [] }
                }
            }
        }
        var ended: [UInt64] {
            handOffs.withLockedValue { $0.compactMap { if case .ended(let key) = $0 { key } else { nil } } }
        }
    }

    static func harness(_ catchUp: CatchUpConfiguration = CatchUpConfiguration(mode: .off)) throws -> (Harness, Sink) {
        let h = try Harness(catchUp: catchUp)
        let sink = Sink()
        h.relay.recordingSink = { handOff in sink.handOffs.withLockedValue { $0.append(handOff) } }
        return (h, sink)
    }

    @Test("a recorded burst's packets go to the recorder every quarter second, then its end; other bursts do not")
    func handOff() throws {
        let (h, sink) = try Self.harness()
        try h.join(1, 2)
        h.apply(.floor(h.id, holder: MemberID("m1")))
        h.apply(.record(h.id, key: 7))
        try CatchUpRelayTests.talk(h, 10)  // 200 ms
        #expect(sink.handOffs.withLockedValue { $0.count } == 0)
        try CatchUpRelayTests.talk(h, 10, first: 11)
        #expect(sink.packets.count == 13, "the first hand-off at 250 ms")
        h.apply(.floor(h.id, holder: nil))
        #expect(sink.packets.map { $0.payload[1] } == (0..<10).map(UInt8.init) + (0..<10).map(UInt8.init))
        #expect(sink.ended == [7])
        let stamps = sink.packets.map(\.timestamp)
        #expect(zip(stamps, stamps.dropFirst()).allSatisfy { $1 &- $0 == 960 })

        // The next burst is not recorded: no key for it.
        h.apply(.floor(h.id, holder: MemberID("m2")))
        try CatchUpRelayTests.talk(h, 20, first: 100, from: 2)
        h.apply(.floor(h.id, holder: nil))
        #expect(sink.packets.count == 20 && sink.ended == [7])
        #expect(h.relay.keeping.buffers.isEmpty, "nothing kept with catch-up off and no recording")
    }

    @Test("packets a bound dropped before their hand-off are counted as lost")
    func lostToABound() throws {
        let (h, sink) = try Self.harness(
            CatchUpConfiguration(mode: .off, channelMaxBytes: 5 * (2 + BurstBuffer.entryCost)))
        try h.join(1, 2)
        h.apply(.floor(h.id, holder: MemberID("m1")))
        h.apply(.record(h.id, key: 1))
        for index in 0..<10 { try h.talk(1, sequence: UInt16(index + 1), payload: [0xF8, UInt8(index)]) }
        h.apply(.floor(h.id, holder: nil))
        let lost = sink.handOffs.withLockedValue {
            $0.reduce(0) { if case .packets(_, _, let lost) = $1 { $0 + lost } else { $0 } }
        }
        #expect(lost == 5 && sink.packets.map { $0.payload[1] } == [5, 6, 7, 8, 9])
        #expect(h.counter("ptt_recording_lost_packets_total") == 5)
    }

    @Test("a replay goes to one member at real time; a live burst cancels it, and is refused while one is live")
    func replay() throws {
        let (h, _) = try Self.harness()
        var reports: [RelayReport] = []
        let box = NIOLockedValueBox<[RelayReport]>([])
        h.relay.report = { report in box.withLockedValue { $0.append(report) } }
        try h.join(1, 2, 3)
        let recorded = (0..<50).map { RecordedPacket(payload: [0xF8, UInt8($0)], timestamp: UInt32($0) * 960) }
        h.apply(.replay(MemberID("m3"), burst: 4, speakerSSRC: 1, packets: recorded))
        h.advance(.milliseconds(1))
        h.advance(.milliseconds(200))
        let first = try h.sent()
        #expect(Set(first.map(\.to)) == [try h.address(3)], "member 3 alone")
        #expect((10...11).contains(first.count), "200 ms of audio in 200 ms: \(first.count)")
        #expect(first.first?.header.marker == true && first.first?.header.csrcCount == 1)
        h.apply(.floor(h.id, holder: MemberID("m1")))
        try h.talk(1, sequence: 1, payload: [0xF8, 0xEE])
        let live = try h.sent().filter { $0.to == (try h.address(3)) }
        #expect(live.map(\.payload) == [[0xF8, 0xEE]])
        reports = box.withLockedValue { $0 }
        let ended = reports.compactMap {
            if case .replayEnded(_, _, let burst, let outcome) = $0 { (burst, outcome) } else { nil }
        }
        #expect(ended.count == 1 && ended.first?.0 == 4 && ended.first?.1 == .cancelled)

        h.apply(.replay(MemberID("m2"), burst: 5, speakerSSRC: 1, packets: recorded))
        h.advance(.milliseconds(50))
        #expect(try h.sent().isEmpty, "refused while a burst is live")
        let refused = box.withLockedValue { $0 }.contains {
            if case .replayEnded(_, _, 5, .cancelled) = $0 { true } else { false }
        }
        #expect(refused, "the refusal is reported")
        #expect(h.counter(#"ptt_replay_finished_total{outcome="cancelled"}"#) == 1)
        #expect(h.counter("ptt_replay_started_total") == 1)
    }
}
