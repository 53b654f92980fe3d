import Foundation
import Media
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import PTTProtocol

/// One Opus packet as a listener received it from the relay.
public struct ReceivedAudio: Sendable, Equatable {
    public var payload: [UInt8]
    public var sequenceNumber: UInt16
    public var timestamp: UInt32
    public var marker: Bool
    /// The stream's SSRC (the listener's stable `listenSSRC`).
    public var ssrc: UInt32
    /// The speaker, from the CSRC list.
    public var speakerSSRC: UInt32?
    /// When it arrived (monotonic nanoseconds).
    public var arrival: UInt64
}

/// A member's audio over UDP to the relay: sends Opus as (S)RTP with the member's SSRC and key, receives
/// the channel's stream, and keeps its address alive with RTCP receiver reports.
public final class MediaSession: Sendable {
    public let parameters: MediaParameters
    /// Every authenticated packet received, in arrival order.
    public let received: AsyncStream<ReceivedAudio>
    private let channel: Channel
    private let sender: NIOLockedValueBox<Sender>
    private let keepAlive: NIOLockedValueBox<RepeatedTask?>

    struct Sender {
        var sequence: UInt16
        var srtp: SRTPSession?
        var rtcpSRTP: SRTPSession?
    }

    /// Opens a UDP socket towards the relay at `host` (the control connection's host) and the port in
    /// `parameters`, and sends a first keep-alive so the relay learns where to send.
    public static func open(host: String, parameters: MediaParameters, keepAliveInterval: Duration = .seconds(5),
                            group: EventLoopGroup = MultiThreadedEventLoopGroup.singleton) async throws -> MediaSession {
        let secure = parameters.security == "srtp"
        var key: [UInt8] = []
        if secure {
            guard let text = parameters.key, let bytes = Data(base64Encoded: text), bytes.count == 30 else {
                throw ControlClientError.unexpectedReply("joined without a usable SRTP key")
            }
            key = Array(bytes)
        }
        let (stream, continuation) = AsyncStream<ReceivedAudio>.makeStream(bufferingPolicy: .bufferingNewest(50_000))
        let inbound = secure ? try SRTPSession(direction: .inbound, key: key, ssrc: .specific(parameters.listenSSRC)) : nil
        let channel = try await DatagramBootstrap(group: group)
            .channelOption(.socketOption(.so_rcvbuf), value: 1 << 20)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(MediaReceiveHandler(srtp: inbound, continuation: continuation))
                }
            }
            .connect(host: host, port: parameters.port).get()
        let outbound = secure ? try SRTPSession(direction: .outbound, key: key, ssrc: .specific(parameters.ssrc)) : nil
        var generator = SystemRandomNumberGenerator()
        let session = MediaSession(parameters: parameters, received: stream, channel: channel,
                                   sender: Sender(sequence: UInt16.random(in: 0...UInt16.max, using: &generator), srtp: outbound, rtcpSRTP: outbound))
        // A few keep-alives at first: the relay may not know this membership yet when the very first one
        // arrives (it learns of a join a moment after the control plane answers), and UDP may lose one.
        session.sendKeepAlive()
        for delay in [50, 200, 500, 1_000] {
            channel.eventLoop.scheduleTask(in: .milliseconds(Int64(delay))) { [weak session] in session?.sendKeepAlive() }
        }
        let interval = TimeAmount.nanoseconds(keepAliveInterval.nanosecondsClamped)
        session.keepAlive.withLockedValue {
            $0 = channel.eventLoop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { [weak session] _ in session?.sendKeepAlive() }
        }
        return session
    }

    private init(parameters: MediaParameters, received: AsyncStream<ReceivedAudio>, channel: Channel, sender: Sender) {
        self.parameters = parameters
        self.received = received
        self.channel = channel
        self.sender = NIOLockedValueBox(sender)
        self.keepAlive = NIOLockedValueBox(nil)
    }

    /// Sends one Opus packet with the next sequence number.
    public func send(opus payload: [UInt8], timestamp: UInt32, marker: Bool = false) throws {
        let bytes = try sender.withLockedValue { sender -> [UInt8] in
            let sequence = sender.sequence
            sender.sequence &+= 1
            var packet = try RTPHeader.makePacket(marker: marker, payloadType: UInt8(parameters.payloadType),
                                                  sequenceNumber: sequence, timestamp: timestamp, ssrc: parameters.ssrc, payload: payload)
            if let srtp = sender.srtp { packet = try srtp.protect(packet) }
            return packet
        }
        channel.writeAndFlush(ByteBuffer(bytes: bytes), promise: nil)
    }

    /// Sends an RTCP receiver report: keeps this member's address known to the relay.
    public func sendKeepAlive() {
        guard let bytes = try? sender.withLockedValue({ sender -> [UInt8] in
            var packet = try RTCPWriter.makeKeepAlive(ssrc: parameters.ssrc, cname: "ptt")
            if let srtp = sender.rtcpSRTP { packet = try srtp.protectRTCP(packet) }
            return packet
        }) else { return }
        channel.writeAndFlush(ByteBuffer(bytes: bytes), promise: nil)
    }

    public func close() async {
        keepAlive.withLockedValue { $0?.cancel() }
        try? await channel.close()
    }
}

/// Receives the relay's stream: unprotects, parses, hands on.
final class MediaReceiveHandler: ChannelInboundHandler, @unchecked Sendable {
    // @unchecked: the SRTP session is used only on this channel's event loop.
    typealias InboundIn = AddressedEnvelope<ByteBuffer>

    private let srtp: SRTPSession?
    private let continuation: AsyncStream<ReceivedAudio>.Continuation

    init(srtp: SRTPSession?, continuation: AsyncStream<ReceivedAudio>.Continuation) {
        self.srtp = srtp
        self.continuation = continuation
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var packet = Array(unwrapInboundIn(data).data.readableBytesView)
        guard !RTPHeader.isRTCP(packet) else { return }
        if let srtp {
            guard let clear = try? srtp.unprotect(packet) else { return }
            packet = clear
        }
        guard let header = try? RTPHeader.parse(packet) else { return }
        let payload = Array(packet[header.payloadRange(packetLength: packet.count)])
        continuation.yield(ReceivedAudio(
            payload: payload, sequenceNumber: header.sequenceNumber, timestamp: header.timestamp, marker: header.marker,
            ssrc: header.ssrc, speakerSSRC: header.csrcCount > 0 ? header.csrc(at: 0, in: packet) : nil,
            arrival: NIODeadline.now().uptimeNanoseconds))
    }

    func channelInactive(context: ChannelHandlerContext) {
        continuation.finish()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        // ICMP port unreachable while the relay restarts: keep the socket.
    }
}
