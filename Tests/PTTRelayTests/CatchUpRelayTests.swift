import NIOCore
import PTTCore
import RTP
import Testing

@testable import PTTRelay

/// Kept bursts on the relay (embedded channel, the relay's clock moved by the test): who catches up, from where,
/// at what pace, the hand-over to live packets, and the bounds on what is kept.
@Suite("Catch-up on the relay")
struct CatchUpRelayTests {
    typealias Harness = MediaRelayHandlerTests.Harness

    static func keeping(
        _ mode: CatchUpMode = .woken, speed: Double = 4, channelMaxBytes: Int = 1 << 20, serverMaxBytes: Int = 64 << 20
    ) -> CatchUpConfiguration {
        CatchUpConfiguration(
            mode: mode, speed: speed, channelMaxBytes: channelMaxBytes, serverMaxBytes: serverMaxBytes)
    }

    /// Member 1 talks `count` packets, 20 ms apart (sequence numbers from `first`).
    static func talk(_ h: Harness, _ count: Int, first: UInt16 = 1, from speaker: UInt32 = 1) throws {
        for index in 0..<count {
            try h.talk(speaker, sequence: first + UInt16(index), payload: [0xF8, UInt8(truncatingIfNeeded: index)])
            h.advance(.milliseconds(20))
        }
    }

    static func keepAlive(_ h: Harness, _ n: UInt32) throws {
        try h.send(from: n, RTCPWriter.makeKeepAlive(ssrc: n, cname: "m\(n)"))
    }

    @Test("a woken member heard mid-burst gets every packet from the first, paced at 4× real time, then live ones")
    func wokenCatchesUp() throws {
        let h = try Harness(catchUp: Self.keeping())
        try h.join(1, 2)
        h.apply(.join(h.config(3)))  // woken: its app has not reached the relay yet
        h.apply(.floor(h.id, holder: MemberID("m1")))
        h.apply(.woken(h.id, [MemberID("m3")]))
        try Self.talk(h, 20)
        #expect(try h.sent().count == 20, "member 2 hears it live")

        try Self.keepAlive(h, 3)
        h.advance(.milliseconds(1))
        let first = try h.sent()
        #expect(first.map(\.payload) == [[0xF8, 0]], "the burst's first packet at once")
        #expect(first.first?.header.marker == true)
        // 4× real time: 80 ms of audio per 20 ms.
        h.advance(.milliseconds(20))
        let paced = try h.sent()
        #expect(paced.count == 4)

        // Live packets go on meanwhile: to member 2 at once, to member 3 in its turn, never twice.
        var toThree = (first + paced).map { Int($0.payload[1]) }
        for index in 20..<40 {
            try h.talk(1, sequence: UInt16(index + 1), payload: [0xF8, UInt8(index)])
            h.advance(.milliseconds(20))
            toThree += try h.sent().filter { $0.to == (try h.address(3)) }.map { Int($0.payload[1]) }
        }
        #expect(toThree == Array(0..<40))
        #expect(h.relay.membersByID[MemberID("m3")]?.playback == nil, "caught up")
        #expect(h.counter("ptt_catchup_started_total") == 1)
        #expect(h.counter(#"ptt_catchup_finished_total{outcome="live"}"#) == 1)
        #expect(h.counter("ptt_catchup_lag_seconds_count") == 1)
        #expect(h.counter("ptt_catchup_packets_total") >= 20)
    }

    @Test(
        "the stream a member catches up on is continuous: every packet once, in order, one sequence, timestamps as sent"
    )
    func continuousStream() throws {
        let h = try Harness(catchUp: Self.keeping(speed: 2))
        try h.join(1)
        h.apply(.join(h.config(3)))
        h.apply(.floor(h.id, holder: MemberID("m1")))
        h.apply(.woken(h.id, [MemberID("m3")]))
        try Self.talk(h, 30)
        _ = try h.sent()
        try Self.keepAlive(h, 3)
        var heard: [(header: RTPHeader, payload: [UInt8])] = []
        for index in 0..<60 {
            try h.talk(1, sequence: UInt16(31 + index), payload: [0xF8, UInt8(30 + index)])
            h.advance(.milliseconds(20))
            heard += try h.sent().map { ($0.header, $0.payload) }
        }
        #expect(heard.map { Int($0.payload[1]) } == Array(0..<90))
        for (a, b) in zip(heard, heard.dropFirst()) {
            #expect(b.header.sequenceNumber == a.header.sequenceNumber &+ 1)
            #expect(b.header.timestamp &- a.header.timestamp == 960)
        }
        #expect(heard.first?.header.marker == true)
        #expect(heard.dropFirst().allSatisfy { !$0.header.marker })
    }

    @Test("who catches up: woken members only by default, every late joiner when configured, nobody when off")
    func whoCatchesUp() throws {
        for mode in CatchUpMode.allCases {
            let h = try Harness(catchUp: Self.keeping(mode, speed: 20))
            try h.join(1)
            h.apply(.join(h.config(3)))
            h.apply(.floor(h.id, holder: MemberID("m1")))
            try Self.talk(h, 10)
            try Self.keepAlive(h, 3)
            h.advance(.milliseconds(100))
            let got = try h.sent().count
            #expect(got == (mode == .lateJoiners ? 10 : 0), "\(mode): \(got)")
        }
    }

    @Test("a member woken for an earlier burst, or heard after the burst ended, does not catch up")
    func onlyTheCurrentBurst() throws {
        let h = try Harness(catchUp: Self.keeping(speed: 20))
        try h.join(1, 2)
        h.apply(.join(h.config(3)), .join(h.config(4)))
        h.apply(.floor(h.id, holder: MemberID("m1")))
        h.apply(.woken(h.id, [MemberID("m3"), MemberID("m4")]))
        try Self.talk(h, 10)
        h.apply(.floor(h.id, holder: nil))
        try Self.keepAlive(h, 3)  // after the burst
        h.apply(.floor(h.id, holder: MemberID("m2")))
        try Self.talk(h, 5, first: 100, from: 2)
        _ = try h.sent()
        try Self.keepAlive(h, 4)  // woken for the first burst, heard during the second
        h.advance(.milliseconds(100))
        #expect(try h.sent().isEmpty)
        #expect(h.counter("ptt_catchup_started_total") == 0)
        #expect(h.relay.keeping.buffers.count == 1, "the ended burst was let go")
    }

    @Test("a member silent past the silence timeout catches up from the first packet it was not sent")
    func staleMember() throws {
        let h = try Harness(catchUp: Self.keeping(.lateJoiners, speed: 20))
        try h.join(1, 3)
        h.advance(.seconds(29))
        h.apply(.floor(h.id, holder: MemberID("m1")))
        try Self.talk(h, 100)  // member 3 goes stale 1 s in: after 50 packets
        let live = try h.sent().filter { $0.to == (try h.address(3)) }
        try Self.keepAlive(h, 3)
        h.advance(.milliseconds(100))
        let caught = try h.sent()
        #expect(live.count + caught.count == 100, "\(live.count) live, \(caught.count) caught up")
        #expect(caught.first.map { Int($0.payload[1]) } == live.count)
    }

    @Test(
        "a member silent past the silence timeout that comes back from another address catches up from the first packet"
    )
    func staleMemberMoved() throws {
        let h = try Harness(catchUp: Self.keeping(.lateJoiners, speed: 20))
        try h.join(1, 3)
        h.advance(.seconds(29))
        h.apply(.floor(h.id, holder: MemberID("m1")))
        try Self.talk(h, 100)  // member 3 goes stale 1 s in: its old address got the first 50 packets
        let live = try h.sent().filter { $0.to == (try h.address(3)) }
        #expect(live.count >= 50, "copies went to the old address until its silence timeout ran out")
        // A new socket of member 3's (a woken app started anew): the copies to the old one never reached it.
        let moved = try SocketAddress(ipAddress: "127.0.0.1", port: 41_003)
        try h.send(from: 3, RTCPWriter.makeKeepAlive(ssrc: 3, cname: "m3"), address: moved)
        h.advance(.milliseconds(100))
        let caught = try h.sent().filter { $0.to == moved }
        #expect(caught.map { Int($0.payload[1]) } == Array(0..<100))
    }

    /// Member 1 talks 20 packets to member 3, heard at its old address (reachable for the 30 s silence timeout),
    /// woken or not; then member 3 is heard from a new address. Returns what went to each address, and the new one.
    static func movesWhileReachable(
        woken: Bool
    ) throws -> (h: Harness, live: [Int], caught: [Int], moved: SocketAddress) {
        let h = try Harness(catchUp: Self.keeping(speed: 20))
        try h.join(1, 3)
        h.apply(.floor(h.id, holder: MemberID("m1")))
        if woken { h.apply(.woken(h.id, [MemberID("m3")])) }
        try Self.talk(h, 20)
        let live = try h.sent().filter { $0.to == (try h.address(3)) }.map { Int($0.payload[1]) }
        let moved = try SocketAddress(ipAddress: "127.0.0.1", port: 41_003)
        try h.send(from: 3, RTCPWriter.makeKeepAlive(ssrc: 3, cname: "m3"), address: moved)
        h.advance(.milliseconds(100))
        let caught = try h.sent().filter { $0.to == moved }.map { Int($0.payload[1]) }
        return (h, live, caught, moved)
    }

    /// The control plane woke the member because it counted it silent; the relay, whose reports to the plane lag its
    /// own view by up to a report interval, still counted its old address reachable when the woken app's new socket
    /// was heard. Before, that app got no catch-up at all, only live packets (`KitClientTests.wakeThenCatchUp` failed
    /// now and then: "no 25 packets heard").
    @Test("a woken member heard from a new address catches up from the first packet, even if its old one still counted")
    func wokenMemberMovedWhileReachable() throws {
        let (h, live, caught, moved) = try Self.movesWhileReachable(woken: true)
        #expect(live.count == 20, "the relay sent to the old address, which it still counted reachable")
        #expect(caught == Array(0..<20))
        // Its next keep-alive, from the same new address, starts nothing again.
        try h.send(from: 3, RTCPWriter.makeKeepAlive(ssrc: 3, cname: "m3"), address: moved)
        h.advance(.milliseconds(100))
        #expect(try h.sent().isEmpty)
        #expect(h.counter("ptt_catchup_started_total") == 1)
    }

    @Test("a member that was not woken and moves while reachable gets no catch-up: its old address had the packets")
    func unwokenMemberMovedWhileReachable() throws {
        let (h, live, caught, _) = try Self.movesWhileReachable(woken: false)
        #expect(live.count == 20)
        #expect(caught.isEmpty)
        #expect(h.counter("ptt_catchup_started_total") == 0)
    }

    @Test("a new burst cancels a catch-up of the last one: live wins")
    func newBurstCancels() throws {
        let h = try Harness(catchUp: Self.keeping(.lateJoiners, speed: 1.1))
        try h.join(1, 2)
        h.apply(.join(h.config(3)))
        h.apply(.floor(h.id, holder: MemberID("m1")))
        try Self.talk(h, 50)
        try Self.keepAlive(h, 3)
        h.apply(.floor(h.id, holder: nil))
        h.advance(.milliseconds(100))
        _ = try h.sent()
        #expect(h.relay.membersByID[MemberID("m3")]?.playback != nil, "still catching up after the burst ended")
        h.apply(.floor(h.id, holder: MemberID("m2")))
        try h.talk(2, sequence: 500, payload: [0xF8, 0xEE])
        let copies = try h.sent().filter { $0.to == (try h.address(3)) }
        #expect(copies.map(\.payload) == [[0xF8, 0xEE]])
        #expect(h.counter(#"ptt_catchup_finished_total{outcome="cancelled"}"#) == 1)
        #expect(h.relay.keeping.buffers.count == 1)
    }

    @Test("the server-wide bound holds with many channels talking at once: the oldest packets go, counted")
    func serverBound() throws {
        let bound = 40 * (100 + BurstBuffer.entryCost)
        let h = try Harness(catchUp: Self.keeping(.lateJoiners, serverMaxBytes: bound))
        let channels = (0..<8).map { _ in ChannelID() }
        for (index, channel) in channels.enumerated() {
            let speaker = UInt32(10 + 2 * index)
            h.apply(.join(h.config(speaker, channel: channel)), .join(h.config(speaker + 1, channel: channel)))
            try Self.keepAlive(h, speaker)
            try Self.keepAlive(h, speaker + 1)
            h.apply(.floor(channel, holder: MemberID("m\(speaker)")))
        }
        let payload = [UInt8](repeating: 0xF8, count: 100)
        for round in 0..<20 {
            for index in channels.indices {
                try h.talk(UInt32(10 + 2 * index), sequence: UInt16(round + 1), payload: payload)
                #expect(h.relay.keeping.totalBytes <= bound)
            }
            h.advance(.milliseconds(20))
        }
        _ = try h.sent()
        #expect(h.counter("ptt_catchup_evicted_packets_total") == 8 * 20 - 40)
        let kept = h.relay.keeping.buffers.map { $0.endIndex - $0.firstRetained }
        #expect(kept.reduce(0, +) == 40)
        #expect(h.relay.keeping.buffers.allSatisfy { $0.firstRetained == 15 }, "the oldest went first: \(kept)")
    }

    @Test("a channel's own bound keeps its newest packets")
    func channelBound() throws {
        let h = try Harness(
            catchUp: Self.keeping(.lateJoiners, speed: 20, channelMaxBytes: 10 * (2 + BurstBuffer.entryCost)))
        try h.join(1)
        h.apply(.join(h.config(3)))
        h.apply(.floor(h.id, holder: MemberID("m1")))
        try Self.talk(h, 30)
        try Self.keepAlive(h, 3)
        h.advance(.milliseconds(50))
        #expect(try h.sent().map { Int($0.payload[1]) } == Array(20..<30))
        #expect(h.counter("ptt_catchup_evicted_packets_total") == 20)
    }

    @Test("members catching up at once share the server's budget of kept packets per tick, each getting every packet")
    func sharedBudget() throws {
        var configuration = Self.keeping(.lateJoiners, speed: 20)
        configuration.maxPacketsPerSecond = 5_000  // 10 per 2 ms tick
        let h = try Harness(catchUp: configuration)
        try h.join(1)
        let late = Array(UInt32(10)..<UInt32(40))
        for n in late { h.apply(.join(h.config(n))) }
        h.apply(.floor(h.id, holder: MemberID("m1")))
        try Self.talk(h, 20)
        for n in late { try Self.keepAlive(h, n) }
        var got: [Int: [Int]] = [:]
        for tick in 0..<100 {
            if tick == 0 { h.loop.run() } else { h.advance(BurstKeeping.playbackTick) }  // one tick each
            let copies = try h.sent()
            #expect(copies.count <= 10, "\(copies.count) kept packets in one tick")
            for copy in copies { got[copy.to.port!, default: []].append(Int(copy.payload[1])) }
        }
        #expect(got.count == late.count)
        #expect(got.values.allSatisfy { $0 == Array(0..<20) }, "every member got the whole burst, in order")
        #expect(h.counter(#"ptt_catchup_finished_total{outcome="live"}"#) == late.count)
    }

    @Test("ticks that come late (a loaded relay thread) send what fell due meanwhile: the catch-up keeps its speed")
    func lateTicks() throws {
        let h = try Harness(catchUp: Self.keeping(.lateJoiners))
        try h.join(1)
        h.apply(.join(h.config(3)))
        h.apply(.floor(h.id, holder: MemberID("m1")))
        try Self.talk(h, 400)
        try Self.keepAlive(h, 3)
        h.loop.run()
        var got = try h.sent().map { Int($0.payload[1]) }
        #expect(got == [0], "the first packet at once")
        for round in 1...4 {
            // The relay's thread runs one tick 100 ms after the last: 400 ms of audio fell due at 4×.
            h.time.now = h.time.now + .milliseconds(100)
            h.loop.advanceTime(by: BurstKeeping.playbackTick)
            let copies = try h.sent().map { Int($0.payload[1]) }
            #expect(copies.count == 20, "round \(round): \(copies.count) kept packets in a tick 100 ms late")
            got += copies
        }
        #expect(got == Array(0...80))
        // After a longer stall every kept packet is due; a tick sends 25 ticks' worth (50 ms) at most: 8 × 25.
        h.time.now = h.time.now + .seconds(10)
        h.loop.advanceTime(by: BurstKeeping.playbackTick)
        #expect(try h.sent().map { Int($0.payload[1]) } == (81..<281).map { $0 & 0xFF })
    }

    @Test("a kept burst: numbering, dropping the oldest, compaction and lookup by arrival")
    func burstBuffer() {
        let buffer = BurstBuffer(channel: ChannelID(), speakerSSRC: 1, generation: 1)
        let start = NIODeadline.uptimeNanoseconds(1_000)
        for index in 0..<200 {
            buffer.append(
                [UInt8](repeating: UInt8(index % 256), count: index % 7 + 1), timestamp: UInt32(index * 960),
                marker: index == 0, arrival: start + .milliseconds(Int64(index * 20)))
        }
        #expect(buffer.endIndex == 200)
        for _ in 0..<150 { buffer.dropOldest() }
        #expect(buffer.firstRetained == 150)
        #expect(buffer.byteCount == (150..<200).reduce(0) { $0 + $1 % 7 + 1 + BurstBuffer.entryCost })
        for index in 150..<200 {
            buffer.withPacket(index) { entry, payload in
                #expect(Array(payload) == [UInt8](repeating: UInt8(index % 256), count: index % 7 + 1))
                #expect(entry.timestamp == UInt32(index * 960))
            }
        }
        #expect(buffer.firstIndex(arrivedAfter: start) == 150)
        #expect(buffer.firstIndex(arrivedAfter: start + .milliseconds(180 * 20)) == 181)
        #expect(buffer.firstIndex(arrivedAfter: start + .seconds(100)) == 200)
        while buffer.dropOldest() {}
        #expect(buffer.isEmpty && buffer.byteCount == 0 && buffer.endIndex == 200)
    }

    @Test("the pacer: audio time over wall time at the given speed, across the timestamp wrap")
    func pacer() {
        let start = NIODeadline.uptimeNanoseconds(5_000_000)
        let pacer = PlaybackPacer(origin: UInt32.max - 960, start: start, speed: 4)
        #expect(pacer.isDue(UInt32.max - 960, now: start))
        #expect(!pacer.isDue(UInt32.max - 959, now: start))
        // 80 ms of audio is due 20 ms in, 100 ms is not.
        #expect(pacer.isDue(UInt32.max &- 960 &+ 3840, now: start + .milliseconds(20)))
        #expect(!pacer.isDue(UInt32.max &- 960 &+ 4800, now: start + .milliseconds(20)))
    }
}
