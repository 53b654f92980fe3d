import Foundation
import Logging
import NIOCore
import NIOEmbedded
import PTTCore
import PTTProtocol
import PTTStore
import TestSupport
import Testing

@testable import PTTServer

/// ``ControlSessionHandler`` on an `EmbeddedChannel`: the timers, writes, closes and reads that carry out
/// what ``ControlSessionStateMachine`` decides (the machine itself: ControlSessionStateMachineTests).
///
/// The plane runs on an `EmbeddedEventLoop` of its own that the tests do not run unless they say so: every
/// request handed to it stays unanswered, and the plane's answers (`authenticated`, `requestDone`) are
/// fired by the test as the plane would fire them.
@Suite("Control session handler on an embedded channel")
struct ControlSessionHandlerTests {
    /// A handler in an embedded channel, connected from 127.0.0.1, and the plane it reports to.
    struct Rig {
        let channel: EmbeddedChannel
        let planeLoop: EmbeddedEventLoop
        let plane: ControlPlane
        let metrics: ServerMetrics
        let handler: ControlSessionHandler
        let reads: ReadCounter

        /// NIO asking to read, as it does after each read from the socket: a read from the tail of the pipeline
        /// towards the socket, which passes through the handler (an outbound event: see
        /// ``pipelineReadsReachHandler()``).
        func handlerRead() throws {
            channel.read()
        }

        /// Moves the connection's time on (timers fire, queued flushes run).
        func advance(by duration: Duration) {
            channel.embeddedEventLoop.advanceTime(by: .nanoseconds(duration.nanoseconds))
        }

        /// The frames the handler's session wrote, in order, since the last call.
        func written() throws -> [ControlMessage] {
            channel.embeddedEventLoop.run()
            var messages: [ControlMessage] = []
            while var buffer = try channel.readOutbound(as: ByteBuffer.self) {
                while buffer.readableBytes > 0 {
                    let length = try require_(buffer.readInteger(as: UInt32.self), "frame length")
                    let body = try require_(buffer.readBytes(length: Int(length)), "frame body")
                    messages.append(try ControlMessageCoding.decode(Data(body)))
                }
            }
            return messages
        }

        /// Fires what the plane fires down the connection's pipeline.
        func plane(_ event: ControlSessionEvent) {
            channel.pipeline.fireUserInboundEventTriggered(event)
            channel.embeddedEventLoop.run()
        }

        /// Sends `hello` and answers it as the plane does when it succeeds.
        func authenticate() throws {
            try channel.writeInbound(ControlMessage.hello(Hello(user: "alice", secret: "secret", device: "phone")))
            plane(.authenticated)
            plane(.requestDone)
        }

        /// One series of the server's metrics (0 when absent).
        func metric(_ series: String) -> Double {
            PTTServerTests.metric(String(decoding: metrics.exposition(), as: UTF8.self), series) ?? 0
        }
    }

    /// Counts the reads the handler lets through towards the socket.
    final class ReadCounter: ChannelOutboundHandler, @unchecked Sendable {
        // @unchecked: used on the embedded loop's thread only.
        typealias OutboundIn = Any
        private(set) var count = 0
        func read(context: ChannelHandlerContext) {
            count += 1
            context.read()
        }
    }

    static func rig(
        helloTimeout: Duration = .seconds(5), heartbeatInterval: Duration = .seconds(10), heartbeatMissLimit: Int = 3
    ) throws -> Rig {
        var configuration = ServerConfiguration()
        configuration.limits.helloTimeout = helloTimeout
        let logger = Logger(label: "control-session-handler-tests", factory: { _ in SwiftLogNoOpLogHandler() })
        let metrics = ServerMetrics()
        let planeLoop = EmbeddedEventLoop()
        let plane = try ControlPlane(
            eventLoop: planeLoop, configuration: configuration, store: SQLiteStore(path: ":memory:"), metrics: metrics,
            clock: ManualClock(), storageLoop: planeLoop, logger: logger)
        let handler = ControlSessionHandler(
            plane: plane, metrics: metrics, sessionID: 1, heartbeatInterval: heartbeatInterval,
            heartbeatMissLimit: heartbeatMissLimit,
            limits: ConnectionLimitsInEffect(configuration.limits), outcome: ConnectionOutcome(),
            gate: HelloGate(limit: configuration.limits.maxPendingHellos), logger: logger)
        let reads = ReadCounter()
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(reads)
        try channel.pipeline.syncOperations.addHandler(handler)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 40_000)).wait()
        return Rig(
            channel: channel, planeLoop: planeLoop, plane: plane, metrics: metrics, handler: handler, reads: reads)
    }

    static func errorCode(_ message: ControlMessage?) -> ErrorCode? {
        guard case .error(let error)? = message else { return nil }
        return error.code
    }

    // MARK: Hello

    @Test("a connection that sends nothing is closed with not-authenticated at the hello deadline, not before")
    func helloTimeout() throws {
        let rig = try Self.rig(helloTimeout: .seconds(5))
        rig.advance(by: .milliseconds(4_999))
        #expect(rig.channel.isActive)
        #expect(try rig.written().isEmpty)
        rig.advance(by: .milliseconds(1))
        let written = try rig.written()
        #expect(written.count == 1)
        guard case .error(let error)? = written.first else {
            Issue.record("expected an error frame, got \(written.map(\.type))")
            return
        }
        #expect(error.code == .notAuthenticated)
        #expect(error.message == "no hello within 5000 ms")
        #expect(!rig.channel.isActive)
        #expect(rig.metric(#"ptt_control_connections_closed_total{reason="hello-timeout"}"#) == 1)
    }

    @Test("a hello in time disarms the deadline, even while the plane has not answered it")
    func helloInTime() throws {
        let rig = try Self.rig(helloTimeout: .seconds(5))
        rig.advance(by: .seconds(4))
        try rig.channel.writeInbound(ControlMessage.hello(Hello(user: "alice", secret: "secret", device: "phone")))
        rig.advance(by: .seconds(60))
        #expect(rig.channel.isActive)
        #expect(try rig.written().isEmpty)
        #expect(rig.metric(#"ptt_control_connections_closed_total{reason="hello-timeout"}"#) == 0)
    }

    @Test(
        "a first frame other than hello is refused with not-authenticated and the connection closed at once",
        arguments: [
            ControlMessage.join(Join(id: 1, channel: "deck")),
            .heartbeat(Heartbeat(seq: 1)),
            .heartbeatAck(HeartbeatAck(seq: 1)),
        ])
    func firstFrameNotHello(frame: ControlMessage) throws {
        let rig = try Self.rig()
        try rig.channel.writeInbound(frame)
        let written = try rig.written()
        #expect(written.map(\.type) == ["error"])
        #expect(Self.errorCode(written.first) == .notAuthenticated)
        #expect(!rig.channel.isActive)
        #expect(rig.metric(#"ptt_control_frames_rejected_total{reason="not-authenticated"}"#) == 1)
        // The hello deadline does not fire on the closed connection.
        rig.advance(by: .seconds(10))
        #expect(rig.metric(#"ptt_control_connections_closed_total{reason="hello-timeout"}"#) == 0)
    }

    @Test("a second hello is refused with already-authenticated")
    func secondHello() throws {
        let rig = try Self.rig()
        try rig.authenticate()
        try rig.channel.writeInbound(ControlMessage.hello(Hello(user: "alice", secret: "secret", device: "phone")))
        let written = try rig.written()
        #expect(Self.errorCode(written.last) == .alreadyAuthenticated)
        #expect(!rig.channel.isActive)
    }

    @Test("the plane is told of the session when the connection opens and when it closes")
    func planeHandOff() throws {
        let rig = try Self.rig()
        rig.planeLoop.run()
        #expect(rig.plane.sessions.records[1] != nil)
        #expect(rig.metric("ptt_control_connections") == 1)
        try rig.channel.close().wait()
        rig.planeLoop.run()
        #expect(rig.plane.sessions.records[1] == nil)
        #expect(rig.metric("ptt_control_connections") == 0)
    }

    // MARK: Heartbeats

    @Test("heartbeats start when hello succeeds and go out at the interval, numbered from 1")
    func heartbeatsAtInterval() throws {
        let rig = try Self.rig(helloTimeout: .seconds(60), heartbeatInterval: .seconds(10))
        // None before hello succeeds.
        rig.advance(by: .seconds(30))
        #expect(try rig.written().isEmpty)
        try rig.authenticate()
        rig.advance(by: .milliseconds(9_999))
        #expect(try rig.written().isEmpty)
        rig.advance(by: .milliseconds(1))
        #expect(try rig.written() == [.heartbeat(Heartbeat(seq: 1))])
        try rig.channel.writeInbound(ControlMessage.heartbeatAck(HeartbeatAck(seq: 1)))
        rig.advance(by: .seconds(10))
        #expect(try rig.written() == [.heartbeat(Heartbeat(seq: 2))])
        #expect(rig.channel.isActive)
    }

    @Test("the connection closes with heartbeat-timeout once the configured number of heartbeats go unacknowledged")
    func missedHeartbeats() throws {
        let rig = try Self.rig(heartbeatInterval: .seconds(10), heartbeatMissLimit: 2)
        try rig.authenticate()
        rig.advance(by: .seconds(10))
        #expect(try rig.written() == [.heartbeat(Heartbeat(seq: 1))])
        rig.advance(by: .seconds(10))
        #expect(try rig.written() == [.heartbeat(Heartbeat(seq: 2))])
        #expect(rig.metric("ptt_heartbeats_missed_total") == 1)
        #expect(rig.channel.isActive)
        rig.advance(by: .seconds(10))
        let written = try rig.written()
        guard case .error(let error)? = written.last else {
            Issue.record("expected an error frame, got \(written.map(\.type))")
            return
        }
        #expect(error.code == .heartbeatTimeout)
        #expect(error.message == "2 heartbeats were not acknowledged")
        #expect(!rig.channel.isActive)
        #expect(rig.metric(#"ptt_control_connections_closed_total{reason="heartbeat-timeout"}"#) == 1)
        // No heartbeat after the close.
        rig.advance(by: .seconds(30))
        #expect(try rig.written().isEmpty)
    }

    @Test("an acknowledged heartbeat resets the count of misses")
    func acknowledgedResets() throws {
        let rig = try Self.rig(heartbeatInterval: .seconds(10), heartbeatMissLimit: 2)
        try rig.authenticate()
        for seq in UInt64(1)...5 {
            rig.advance(by: .seconds(10))
            #expect(try rig.written() == [.heartbeat(Heartbeat(seq: seq))])
            try rig.channel.writeInbound(ControlMessage.heartbeatAck(HeartbeatAck(seq: seq)))
        }
        #expect(rig.channel.isActive)
        #expect(rig.metric("ptt_heartbeats_missed_total") == 0)
    }

    @Test("a client's heartbeat is answered with an acknowledgement of its seq")
    func answersHeartbeat() throws {
        let rig = try Self.rig()
        try rig.authenticate()
        try rig.channel.writeInbound(ControlMessage.heartbeat(Heartbeat(seq: 77)))
        #expect(try rig.written() == [.heartbeatAck(HeartbeatAck(seq: 77))])
    }

    // MARK: Read back-pressure

    @Test("reading pauses while maxRequestsInFlight requests wait for the plane, and resumes below half of it")
    func readBackPressure() throws {
        let limit = ControlSessionHandler.maxRequestsInFlight
        let rig = try Self.rig()
        try rig.authenticate()
        var reads = rig.reads.count
        try rig.handlerRead()
        #expect(rig.reads.count == reads + 1, "reads with nothing in flight")

        for id in 1..<limit { try rig.channel.writeInbound(ControlMessage.join(Join(id: id, channel: "deck"))) }
        reads = rig.reads.count
        try rig.handlerRead()
        #expect(rig.reads.count == reads + 1, "reads with \(limit - 1) in flight")

        try rig.channel.writeInbound(ControlMessage.join(Join(id: limit, channel: "deck")))
        reads = rig.reads.count
        try rig.handlerRead()
        try rig.handlerRead()
        #expect(rig.reads.count == reads, "no read with \(limit) in flight")

        // Answers come back: no read until fewer than half the limit wait, then exactly one.
        for _ in 0..<(limit - limit / 2) { rig.plane(.requestDone) }
        #expect(rig.reads.count == reads, "no read with \(limit / 2) in flight")
        rig.plane(.requestDone)
        #expect(rig.reads.count == reads + 1, "one read once fewer than \(limit / 2) wait")
        for _ in 0..<(limit / 2 - 1) { rig.plane(.requestDone) }
        #expect(rig.reads.count == reads + 1, "the paused read is resumed once")
        #expect(rig.channel.isActive)
    }

    @Test("reads NIO makes through the pipeline reach the handler, so the pause is in effect on a real connection")
    func pipelineReadsReachHandler() throws {
        let limit = ControlSessionHandler.maxRequestsInFlight
        let rig = try Self.rig()
        try rig.authenticate()
        for id in 1...limit { try rig.channel.writeInbound(ControlMessage.join(Join(id: id, channel: "deck"))) }
        let reads = rig.reads.count
        // What NIO does after each read from the socket with autoRead on (and what the handler's own
        // `context.read()` turns into): a read from the tail of the pipeline towards the socket.
        rig.channel.read()
        #expect(rig.reads.count == reads, "a read went to the socket with \(limit) requests in flight")
    }

    @Test("a closing connection does not read")
    func noReadWhileClosing() throws {
        let rig = try Self.rig()
        try rig.authenticate()
        try rig.channel.writeInbound(ControlMessage.join(Join(id: 1, channel: "deck")))
        // A bad frame after a request: the error waits for the join's answer; reading stops now.
        rig.channel.pipeline.fireErrorCaught(ControlFrameError.malformed("test"))
        let reads = rig.reads.count
        try rig.handlerRead()
        #expect(rig.reads.count == reads)
        #expect(rig.channel.isActive, "open until the join is answered")
        rig.plane(.requestDone)
        let written = try rig.written()
        #expect(Self.errorCode(written.last) == .malformedFrame)
        #expect(!rig.channel.isActive)
    }
}
