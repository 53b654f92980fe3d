import Foundation
import Logging
import NIOCore
import NIOWebSocket
import PTTProtocol

/// Makes a WebSocket connection a control connection: between the WebSocket frames and the
/// ``ControlSessionHandler``, which then treats a browser like any other client (hello first, heartbeats,
/// back-pressure, bounded writes).
///
/// - A text message is one control message (the same JSON as a control frame's body, no length prefix).
/// - A binary message is one RTP packet from the page, for the ``WebMediaGateway``; what the relay sends the
///   browser's memberships comes back as binary messages.
/// - Outbound control frames lose their 4-byte length and go out as text messages. The session announces each
///   `joined`, `welcome` and `left` it writes (``ControlMessageSent``, right before its bytes): they tell the
///   gateway which memberships (SSRCs, keys) the page has.
final class WebSocketControlBridge: ChannelDuplexHandler, @unchecked Sendable {
    // @unchecked: state is touched only on the connection's event loop.
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = ControlMessage
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = WebSocketFrame

    /// Audio bytes written to the page and not yet taken by the socket, past which audio is dropped
    /// (`slow-browser`): half a second of 20 ms frames for a dozen channels. Control frames have their own bound.
    static let maxQueuedAudioBytes = 256 * 1024

    private let relayHost: String
    private let metrics: WebMetrics
    private let logger: Logger
    private var gateway: WebMediaGateway?
    private var queuedAudioBytes = 0
    private var context: ChannelHandlerContext?

    init(relayHost: String, metrics: WebMetrics, logger: Logger) {
        self.relayHost = relayHost
        self.metrics = metrics
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        metrics.sessionsOpen.increment()
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        gateway = WebMediaGateway(
            eventLoop: context.eventLoop, relayHost: relayHost, metrics: metrics, logger: logger,
            deliver: { loopBound.value.deliverAudio($0) })
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        gateway?.close()
        gateway = nil
        self.context = nil
        metrics.sessionsOpen.decrement()
    }

    /// The channels of the memberships the media gateway knows the page has.
    var gatewayChannels: Set<String> { gateway?.channelIDs ?? [] }

    func channelInactive(context: ChannelHandlerContext) {
        gateway?.close()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .text:
            do {
                let message = try ControlMessageCoding.decode(Data(frame.unmaskedData.readableBytesView))
                context.fireChannelRead(wrapInboundOut(message))
            } catch {
                // The session handler answers `malformed-frame` and closes, as for a bad control frame.
                context.fireErrorCaught(error)
            }
        case .binary:
            gateway?.fromPage(frame.unmaskedData)
        case .ping:
            context.writeAndFlush(
                wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)), promise: nil)
        case .pong:
            break
        case .connectionClose:
            var data = frame.unmaskedData
            let code = data.readSlice(length: 2) ?? ByteBuffer()
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: code)))
                .whenComplete { _ in channel.close(promise: nil) }
        default:
            context.close(promise: nil)
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        var frame = unwrapOutboundIn(data)
        guard frame.readableBytes >= 4 else { return context.write(data, promise: promise) }
        frame.moveReaderIndex(forwardBy: 4)
        context.write(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .text, data: frame)), promise: promise)
    }

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        guard let sent = event as? ControlMessageSent else {
            return context.triggerUserOutboundEvent(event, promise: promise)
        }
        observe(sent.message)
        promise?.succeed(())
    }

    /// Tells the gateway about memberships announced to the page.
    private func observe(_ message: ControlMessage) {
        guard let gateway else { return }
        switch message {
        case .joined(let joined): gateway.joined(joined)
        case .welcome(let welcome): welcome.memberships.forEach(gateway.joined)
        case .left(let left): gateway.remove(channelID: left.channel.id)
        case .callConnected(let call):
            gateway.joined(
                Joined(channel: call.channel, member: call.member, media: call.media, floor: call.floor, members: []))
        case .callEnded(let ended): gateway.remove(channelID: ended.call.id)
        case .hello, .heartbeat, .heartbeatAck, .error, .join, .leave, .pushToken, .pushTokenRegistered, .memberJoined,
            .memberLeft, .floorRequest, .floorRelease, .floorGranted, .floorDenied, .floorQueued, .floorQueueCancelled,
            .floorReleased, .floorTaken, .floorIdle, .floorRevoked, .floorRevokePending, .push, .pushAck, .replay,
            .replaying, .replayEnded, .presence, .presenceReport, .emergency, .emergencyDeclared, .emergencyClear,
            .emergencyCleared, .call, .callRinging, .callIncoming, .callAccept, .callDecline, .callHangup, .broadcast,
            .broadcastStarted, .broadcastEnded, .scan, .scanSet, .scanSwitched:
            break
        }
    }

    /// An RTP packet for the page, within the bound of audio waiting for the browser.
    private func deliverAudio(_ packet: ByteBuffer) {
        guard let context else { return }
        let size = packet.readableBytes
        guard queuedAudioBytes + size <= Self.maxQueuedAudioBytes else { return metrics.dropped(.slowBrowser) }
        queuedAudioBytes += size
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        let written = context.eventLoop.makePromise(of: Void.self)
        written.futureResult.whenComplete { _ in loopBound.value.queuedAudioBytes -= size }
        context.writeAndFlush(
            wrapOutboundOut(WebSocketFrame(fin: true, opcode: .binary, data: packet)), promise: written)
    }
}
