import Dispatch
import Logging
import NIOCore
import NIOPosix
import PTTCore
import PTTRelay
import Prometheus
import RTP
import SRTP
import Synchronization

/// Allocations per relayed packet: a real ``MediaRelay`` on its own event loop and UDP socket on 127.0.0.1, one
/// speaker holding the floor and `listeners` members, each a real UDP socket. The speaker sends one packet at a
/// time and the next goes only once every listener has its copy, so each packet is one read cycle of the relay
/// (datagram read, unprotect, rules, one copy per listener protected in place, one `sendmmsg`): what is counted
/// is that whole path, per packet received from the speaker.
struct RelayPacketBench {
    var secure: Bool
    var listeners = 100
    var warmUp = 100
    var packets = 1000

    /// The Opus frame every packet carries: TOC 0xF8 (CELT full band 20 ms, one frame) and 80 bytes.
    static let payload: [UInt8] = [0xF8] + [UInt8](repeating: 0x5A, count: 80)

    func run() async throws -> GateMetric {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let registry = PrometheusCollectorRegistry()
        func counter(_ name: String, _ labels: [(String, String)] = []) -> Counter {
            registry.makeCounter(
                descriptor: MetricNameDescriptor(metricName: name, unitName: "", helpText: name), labels: labels)
        }
        let metrics = RelayMetrics(
            received: counter("received"), forwarded: counter("forwarded"), addressChanges: counter("moved"),
            sendBufferFull: counter("full"), drop: { counter("dropped", [("reason", $0.rawValue)]) })
        let relay = MediaRelay(
            eventLoop: group.next(), secure: secure, implicitFloorRequest: false, silenceTimeout: .seconds(30),
            metrics: metrics, logger: Logger(label: "pttbench-gate", factory: { _ in SwiftLogNoOpLogHandler() }))
        let heard = HeardMembers(expecting: listeners + 1)
        relay.report = { report in
            if case .heard(let member, _, _, _) = report { heard.insert(member) }
        }
        try await relay.bind(host: "127.0.0.1", port: 0)
        let channel = ChannelID()
        let members = try (0...listeners).map { try BenchMember(index: $0, channel: channel, secure: secure) }
        relay.apply(members.map { .join($0.config) } + [.floor(channel, holder: members[0].config.id)])
        for member in members { try member.socket.send(try member.keepAlive(), toPort: relay.port) }
        guard heard.wait(seconds: 10) else {
            throw GateFailure("the relay heard \(heard.count) of \(members.count) members' keep-alives within 10 s")
        }
        let speaker = members[0]
        let audience = Array(members.dropFirst())
        var sequence: UInt16 = 1
        func relayOne() throws {
            let packet = try RTPHeader.makePacket(
                payloadType: 111, sequenceNumber: sequence, timestamp: UInt32(sequence) * 960,
                ssrc: speaker.config.ssrc, payload: Self.payload)
            try speaker.socket.send(try speaker.protect(packet), toPort: relay.port)
            for listener in audience where listener.socket.receive() == nil {
                throw GateFailure(
                    "listener \(listener.config.id) got no copy of packet \(sequence) within 5 s (secure: \(secure))")
            }
            sequence &+= 1
        }
        let reading = try AllocationMeter.measure(warmUp: warmUp, counted: packets) { range in
            for _ in range { try relayOne() }
        }
        await relay.close()
        try await group.shutdownGracefully()
        return GateMetric(
            name: secure ? "relay.srtp.allocationsPerReceivedPacket" : "relay.plain.allocationsPerReceivedPacket",
            reading: reading,
            operations: packets,
            operation: "one \(secure ? "SRTP" : "plain RTP") packet received from the speaker, \(listeners) copies sent"
        )
    }
}

/// The members the relay has heard from (its reports, on the relay's loop), for the driver to wait on.
final class HeardMembers: Sendable {
    private let members = Mutex<Set<MemberID>>([])
    private let expected: Int
    private let allHeard = DispatchSemaphore(value: 0)

    init(expecting expected: Int) { self.expected = expected }

    func insert(_ member: MemberID) {
        let (inserted, count) = members.withLock { ($0.insert(member).inserted, $0.count) }
        if inserted, count == expected { allHeard.signal() }
    }

    var count: Int { members.withLock { $0.count } }

    /// Waits at most `seconds` until every expected member was heard.
    func wait(seconds: Int) -> Bool {
        allHeard.wait(timeout: .now() + .seconds(seconds)) == .success
    }
}
