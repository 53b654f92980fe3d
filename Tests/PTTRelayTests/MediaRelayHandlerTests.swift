import Logging
import NIOCore
import NIOEmbedded
import PTTCore
import Prometheus
import RTP
import Testing

@testable import PTTRelay

#if canImport(Glibc)
import Glibc
#endif

/// The relay's socket handler and state on an `EmbeddedChannel`: changes from the control plane applied
/// one at a time, datagrams in, copies out, drops counted.
@Suite("The relay on an embedded channel")
struct MediaRelayHandlerTests {
    final class Harness {
        let loop = EmbeddedEventLoop()
        let registry = PrometheusCollectorRegistry()
        let relay: MediaRelay
        let channel: EmbeddedChannel
        let id = ChannelID()

        /// - Parameter send: the relay's own sendmmsg, replaced (nil: no descriptor, every copy goes through NIO).
        /// The relay's clock, moved by ``advance(_:)`` together with the loop's.
        final class Time: @unchecked Sendable {
            var now = NIODeadline.uptimeNanoseconds(1_000_000_000)
        }
        let time = Time()

        init(
            implicitFloorRequest: Bool = false, catchUp: CatchUpConfiguration = CatchUpConfiguration(mode: .off),
            send: DatagramBatch.Send? = nil
        ) throws {
            let registry = self.registry
            func name(_ text: String) -> MetricNameDescriptor {
                MetricNameDescriptor(metricName: text, unitName: "", helpText: text)
            }
            let metrics = RelayMetrics(
                received: registry.makeCounter(descriptor: name("received")),
                forwarded: registry.makeCounter(descriptor: name("forwarded")),
                addressChanges: registry.makeCounter(descriptor: name("moved")),
                sendBufferFull: registry.makeCounter(descriptor: name("full")),
                catchUp: CatchUpMetrics(registry),
                links: (
                    registry.makeCounter(descriptor: name("ptt_media_link_packets_sent_total")),
                    registry.makeCounter(descriptor: name("ptt_media_link_packets_received_total"))
                ),
                drop: { registry.makeCounter(descriptor: name("dropped"), labels: [("reason", $0.rawValue)]) })
            relay = MediaRelay(
                eventLoop: loop, secure: false, implicitFloorRequest: implicitFloorRequest,
                silenceTimeout: .seconds(30), catchUp: catchUp, maxBurstDuration: .seconds(32),
                metrics: metrics, logger: Logger(label: "relay-test"))
            let time = self.time
            relay.clock = { time.now }
            channel = EmbeddedChannel(
                handler: MediaRelayHandler(relay: relay, descriptor: send == nil ? nil : -1, send: send), loop: loop)
        }

        /// Moves the relay's clock and runs what the loop has due by then.
        func advance(_ amount: TimeAmount) {
            time.now = time.now + amount
            loop.advanceTime(by: amount)
        }

        func config(_ n: UInt32, channel: ChannelID? = nil) -> RelayMemberConfig {
            RelayMemberConfig(
                id: MemberID("m\(n)"), channel: channel ?? id, ssrc: n, listenSSRC: n ^ 0x5A5A_5A5A, key: [],
                receiveOnly: false)
        }

        func address(_ n: UInt32) throws -> SocketAddress {
            try SocketAddress(ipAddress: "127.0.0.1", port: 40_000 + Int(n))
        }

        func apply(_ changes: RelayChange...) {
            relay.apply(changes)
            loop.run()
        }

        /// Joins members and lets each be heard once (an RTCP keep-alive), so the relay knows its address.
        func join(_ members: UInt32...) throws {
            for n in members {
                apply(.join(config(n)))
                try send(from: n, RTCPWriter.makeKeepAlive(ssrc: n, cname: "m\(n)"))
            }
            #expect(try sent().isEmpty)
        }

        /// A datagram from member `n`, from its usual address or from `address` (a new socket of its).
        func send(from n: UInt32, _ bytes: [UInt8], address: SocketAddress? = nil) throws {
            var buffer = channel.allocator.buffer(capacity: bytes.count)
            buffer.writeBytes(bytes)
            try channel.writeInbound(AddressedEnvelope(remoteAddress: try address ?? self.address(n), data: buffer))
        }

        func talk(_ n: UInt32, sequence: UInt16, payload: [UInt8] = [0xF8, 1, 2, 3]) throws {
            try send(
                from: n,
                RTPHeader.makePacket(
                    payloadType: 111, sequenceNumber: sequence, timestamp: UInt32(sequence) * 960, ssrc: n,
                    payload: payload))
        }

        /// Every datagram written since the last call: to whom, and the parsed packet.
        func sent() throws -> [(to: SocketAddress, header: RTPHeader, payload: [UInt8])] {
            var out: [(SocketAddress, RTPHeader, [UInt8])] = []
            while let envelope = try channel.readOutbound(as: AddressedEnvelope<ByteBuffer>.self) {
                let bytes = Array(envelope.data.readableBytesView)
                let header = try RTPHeader.parse(bytes)
                out.append(
                    (envelope.remoteAddress, header, Array(bytes[header.payloadRange(packetLength: bytes.count)])))
            }
            return out
        }

        func counter(_ line: String) -> Int {
            var text: [UInt8] = []
            registry.emit(into: &text)
            let found = String(decoding: text, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix(line + " ") }
            return found.flatMap { Int($0.split(separator: " ").last!) } ?? 0
        }
    }

    @Test("the holder reaches every other member, each on its own stream; joins and leaves change that one at a time")
    func fanOut() throws {
        let h = try Harness()
        try h.join(1, 2, 3)
        h.apply(.floor(h.id, holder: MemberID("m1")))
        try h.talk(1, sequence: 10)
        let first = try h.sent()
        #expect(Set(first.map(\.to)) == [try h.address(2), try h.address(3)])
        for copy in first {
            let listener = UInt32(copy.to.port! - 40_000)
            #expect(copy.header.ssrc == listener ^ 0x5A5A_5A5A)
            #expect(copy.header.csrcCount == 1)
            #expect(copy.header.marker, "a burst's first packet")
            #expect(copy.payload == [0xF8, 1, 2, 3])
        }

        h.apply(.leave(MemberID("m2")))
        try h.talk(1, sequence: 11)
        let second = try h.sent()
        #expect(second.map(\.to) == [try h.address(3)])
        #expect(
            second.first?.header.sequenceNumber == first.first { $0.to == (try? h.address(3)) }!.header.sequenceNumber
                &+ 1)
        #expect(second.first?.header.marker == false)

        try h.join(4)
        try h.talk(1, sequence: 12)
        #expect(Set(try h.sent().map(\.to)) == [try h.address(3), try h.address(4)])
        #expect(h.counter("forwarded") == 5)
    }

    @Test(
        "copies the kernel's send buffer has no room for go through NIO and are counted; once NIO wrote them, copies go straight to the kernel again"
    )
    func sendBufferFull() throws {
        final class Kernel: @unchecked Sendable {
            var ports: [Int] = []
            var room = 1
        }
        let kernel = Kernel()
        let h = try Harness { _, datagrams, count, failure in
            var sent: Int32 = 0
            while sent < count, kernel.room > 0 {
                kernel.ports.append(RawSocketAddress(datagrams[Int(sent)]).socketAddress?.port ?? -1)
                kernel.room -= 1
                sent += 1
            }
            failure.pointee = sent < count ? EAGAIN : 0
            return sent
        }
        try h.join(1, 2, 3, 4)
        h.apply(.floor(h.id, holder: MemberID("m1")))
        try h.talk(1, sequence: 10)
        #expect(kernel.ports.count == 1)
        let queued = try h.sent()
        #expect(queued.count == 2)
        #expect(Set(queued.map { $0.to.port! } + kernel.ports) == [40_002, 40_003, 40_004])
        #expect(h.counter("full") == 2)

        // NIO wrote them (an embedded channel does at once): the next packet goes straight to the kernel again.
        kernel.room = 10
        try h.talk(1, sequence: 11)
        #expect(try h.sent().isEmpty)
        #expect(kernel.ports.count == 4)
        #expect(h.counter("forwarded") == 6)
    }

    @Test("a change the plane sent is applied before the next datagram, even if its task has not run yet")
    func changesBeforeDatagrams() throws {
        let h = try Harness()
        try h.join(1, 2)
        h.apply(.floor(h.id, holder: MemberID("m1")))
        // The floor moves to member 2; its first packet is read before the loop runs the queued change.
        h.relay.apply([.floor(h.id, holder: MemberID("m2"))])
        try h.talk(2, sequence: 1)
        #expect(try h.sent().map(\.to) == [try h.address(1)])
        #expect(h.counter(#"dropped{reason="not-floor-holder"}"#) == 0)
        h.loop.run()  // the queued task finds nothing left to apply
        try h.talk(2, sequence: 2)
        #expect(try h.sent().count == 1)
    }

    @Test(
        "a floor that goes idle waits for the end of the read cycle: the holder's last packet, sent before its release, is relayed"
    )
    func releaseAfterDatagrams() throws {
        let h = try Harness()
        try h.join(1, 2)
        h.apply(.floor(h.id, holder: MemberID("m1")))
        // The release (and a join after it) arrive while member 1's last packet waits to be read.
        h.relay.apply([.floor(h.id, holder: nil)])
        h.relay.apply([.join(h.config(3))])
        try h.talk(1, sequence: 1)
        #expect(try h.sent().map(\.to) == [try h.address(2)], "the last packet, to the one member known before")
        h.loop.run()  // the read cycle is over: the release (then the join) are applied
        try h.talk(1, sequence: 2)
        #expect(try h.sent().isEmpty)
        #expect(h.counter(#"dropped{reason="not-floor-holder"}"#) == 1)
        // A new holder is never deferred, even right behind a release.
        h.apply(.floor(h.id, holder: MemberID("m1")))
        h.relay.apply([.floor(h.id, holder: nil)])
        h.relay.apply([.floor(h.id, holder: MemberID("m2"))])
        try h.talk(2, sequence: 1)
        #expect(try h.sent().map(\.to) == [try h.address(1)], "member 2's first packet, relayed")
        #expect(h.counter(#"dropped{reason="not-floor-holder"}"#) == 1)
    }

    @Test("nobody but the holder is relayed, and every drop is counted by reason")
    func drops() throws {
        let h = try Harness()
        try h.join(1, 2)
        h.apply(.floor(h.id, holder: MemberID("m1")))
        try h.talk(2, sequence: 1)
        try h.talk(9, sequence: 1)
        try h.talk(1, sequence: 2, payload: [])
        try h.send(from: 1, [0x80, 111, 0])
        try h.send(
            from: 1, RTPHeader.makePacket(payloadType: 0, sequenceNumber: 3, timestamp: 0, ssrc: 1, payload: [0xF8]))
        #expect(try h.sent().isEmpty)
        #expect(h.counter(#"dropped{reason="not-floor-holder"}"#) == 1)
        #expect(h.counter(#"dropped{reason="unknown-ssrc"}"#) == 1)
        #expect(h.counter(#"dropped{reason="opus"}"#) == 1)
        #expect(h.counter(#"dropped{reason="malformed"}"#) == 1)
        #expect(h.counter(#"dropped{reason="payload-type"}"#) == 1)

        h.apply(.floor(h.id, holder: nil))
        try h.talk(1, sequence: 4)
        #expect(try h.sent().isEmpty)
        #expect(h.counter(#"dropped{reason="not-floor-holder"}"#) == 2)
    }

    @Test("audio on an idle floor is held and sent once the implicit request is granted")
    func implicitRequest() throws {
        let h = try Harness(implicitFloorRequest: true)
        try h.join(1, 2)
        try h.talk(1, sequence: 1)
        try h.talk(1, sequence: 2)
        #expect(try h.sent().isEmpty)
        h.apply(.floor(h.id, holder: MemberID("m1")))
        let released = try h.sent()
        #expect(released.map(\.to) == [try h.address(2), try h.address(2)])
        #expect(
            released.map(\.header.sequenceNumber) == [
                released[0].header.sequenceNumber, released[0].header.sequenceNumber &+ 1,
            ])
    }

    @Test("a member that joins again with the same parameters keeps its stream; removing the channel forgets everyone")
    func rejoinAndRemove() throws {
        let h = try Harness()
        try h.join(1, 2)
        h.apply(.floor(h.id, holder: MemberID("m1")))
        try h.talk(1, sequence: 1)
        let before = try h.sent()
        h.apply(.join(h.config(2)))
        try h.talk(1, sequence: 2)
        let after = try h.sent()
        #expect(after.count == 1)
        #expect(after.first?.header.sequenceNumber == before.first!.header.sequenceNumber &+ 1)

        h.apply(.removeChannel(h.id))
        try h.talk(1, sequence: 3)
        #expect(try h.sent().isEmpty)
        #expect(h.counter(#"dropped{reason="unknown-ssrc"}"#) == 1)
    }
}
