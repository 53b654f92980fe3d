import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import PTTKit
import PTTProtocol
import RTP
import SRTP

/// Lets standard RTP tools (ffmpeg, GStreamer) talk and listen as a member, without knowing about
/// the relay: packets from the relay go, still protected, to a local port the tool listens on; packets
/// the tool sends to a local port go to the relay. The bridge keeps the member's address alive with
/// keep-alives, so the tool needs nothing but the SDP (and, to talk, the member's SSRC and key).
final class MediaBridge: Sendable {
    let parameters: MediaParameters
    /// Where the tool should send its RTP (this bridge listens there).
    let sendPort: Int
    /// Where the bridge delivers the channel's stream (the tool listens there).
    let listenPort: Int
    private let relaySide: Channel
    private let toolSide: Channel
    private let keepAlive: NIOLockedValueBox<RepeatedTask?>
    private let counters: NIOLockedValueBox<(fromRelay: Int, fromTool: Int)>

    var packetsFromRelay: Int { counters.withLockedValue { $0.fromRelay } }
    var packetsFromTool: Int { counters.withLockedValue { $0.fromTool } }

    static func open(
        relayHost: String, parameters: MediaParameters, listenPort: Int, sendPort: Int = 0,
        group: EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws -> MediaBridge {
        let counters = NIOLockedValueBox((fromRelay: 0, fromTool: 0))
        let listenAddress = try SocketAddress(ipAddress: "127.0.0.1", port: listenPort)
        let toolPromise = group.next().makePromise(of: Channel.self)
        // Relay → tool.
        let relaySide = try await DatagramBootstrap(group: group)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        Forwarder { bytes in
                            counters.withLockedValue { $0.fromRelay += 1 }
                            toolPromise.futureResult.whenSuccess { tool in
                                tool.writeAndFlush(
                                    AddressedEnvelope(remoteAddress: listenAddress, data: bytes), promise: nil)
                            }
                        })
                }
            }
            .connect(host: relayHost, port: parameters.port).get()
        // Tool → relay.
        let toolSide = try await DatagramBootstrap(group: group)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        Forwarder { bytes in
                            counters.withLockedValue { $0.fromTool += 1 }
                            relaySide.writeAndFlush(bytes, promise: nil)
                        })
                }
            }
            .bind(host: "127.0.0.1", port: sendPort).get()
        toolPromise.succeed(toolSide)

        var keepAliveSession: SRTPSession?
        if parameters.security == .srtp, let text = parameters.key, let key = Data(base64Encoded: text) {
            keepAliveSession = try SRTPSession(
                direction: .outbound, key: Array(key), ssrc: .specific(parameters.ssrc),
                profile: MediaSession.profile(of: parameters))
        }
        let bridge = MediaBridge(
            parameters: parameters, sendPort: toolSide.localAddress?.port ?? sendPort, listenPort: listenPort,
            relaySide: relaySide, toolSide: toolSide, counters: counters)
        // Keep-alives use SRTCP index numbers of their own; the tool's RTP uses SRTP, so they never collide.
        let session = NIOLockedValueBox(keepAliveSession)
        let ssrc = parameters.ssrc
        let send: @Sendable () -> Void = {
            guard var packet = try? RTCPWriter.makeKeepAlive(ssrc: ssrc, cname: "ptt-bridge") else { return }
            if let protected = session.withLockedValue({ try? $0?.protectRTCP(packet) }) { packet = protected }
            relaySide.writeAndFlush(ByteBuffer(bytes: packet), promise: nil)
        }
        send()
        for delay in [50, 200, 500, 1_000] {
            relaySide.eventLoop.scheduleTask(in: .milliseconds(Int64(delay))) { send() }
        }
        bridge.keepAlive.withLockedValue {
            $0 = relaySide.eventLoop.scheduleRepeatedTask(initialDelay: .seconds(5), delay: .seconds(5)) { _ in send() }
        }
        return bridge
    }

    private init(
        parameters: MediaParameters, sendPort: Int, listenPort: Int, relaySide: Channel, toolSide: Channel,
        counters: NIOLockedValueBox<(fromRelay: Int, fromTool: Int)>
    ) {
        self.parameters = parameters
        self.sendPort = sendPort
        self.listenPort = listenPort
        self.relaySide = relaySide
        self.toolSide = toolSide
        self.keepAlive = NIOLockedValueBox(nil)
        self.counters = counters
    }

    /// The SDP a tool uses to listen (and that describes the stream it may send).
    func sdp(channelName: String) -> String {
        var lines = [
            "v=0",
            "o=- 0 0 IN IP4 127.0.0.1",
            "s=pttrelay \(channelName)",
            "c=IN IP4 127.0.0.1",
            "t=0 0",
            "m=audio \(listenPort) \(parameters.security == .srtp ? "RTP/SAVP" : "RTP/AVP") \(parameters.payloadType)",
            "a=rtpmap:\(parameters.payloadType) opus/48000/2",
            "a=fmtp:\(parameters.payloadType) sprop-stereo=0;useinbandfec=1",
            "a=ptime:20",
        ]
        if parameters.security == .srtp, let key = parameters.key {
            lines.append("a=crypto:1 \(parameters.suite ?? SRTPSession.suiteName) inline:\(key)")
        }
        lines.append("a=ssrc:\(parameters.listenSSRC) cname:pttrelay")
        return lines.joined(separator: "\n") + "\n"
    }

    /// An ffmpeg command line that talks as this member into the bridge.
    func ffmpegTalkCommand(input: String) -> String {
        // ffmpeg reads -ssrc as a signed 32-bit number.
        var command =
            "ffmpeg -re -i \(input) -c:a copy -f rtp -payload_type \(parameters.payloadType) -ssrc \(Int32(bitPattern: parameters.ssrc))"
        if parameters.security == .srtp, let key = parameters.key {
            command +=
                " -srtp_out_suite \(parameters.suite ?? SRTPSession.suiteName) -srtp_out_params \(key) srtp://127.0.0.1:\(sendPort)"
        } else {
            command += " rtp://127.0.0.1:\(sendPort)"
        }
        return command
    }

    func close() async {
        keepAlive.withLockedValue { $0?.cancel() }
        try? await relaySide.close()
        try? await toolSide.close()
    }
}

/// Passes every datagram's bytes to a closure.
final class Forwarder: ChannelInboundHandler, Sendable {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    private let forward: @Sendable (ByteBuffer) -> Void
    init(_ forward: @escaping @Sendable (ByteBuffer) -> Void) { self.forward = forward }
    func channelRead(context: ChannelHandlerContext, data: NIOAny) { forward(unwrapInboundIn(data).data) }
    func errorCaught(context: ChannelHandlerContext, error: Error) {}  // e.g. nobody listening yet on the tool's port
}
