import Foundation
import Logging
import NIOCore
import NIOEmbedded
import NIOWebSocket
import PTTProtocol
import Testing

@testable import PTTServer

/// The browser bridge learns which memberships the page has from the session's typed ``ControlMessageSent``
/// events, not by searching the bytes it writes.
@Suite("Web socket control bridge")
struct WebSocketControlBridgeTests {
    static let deck = ChannelInfo(id: "6f1c2a4e-8d3b-4c5a-9e7f-0a1b2c3d4e5f", name: "deck")
    static let ops = ChannelInfo(id: "0b7d4c1e-2f3a-4b5c-8d9e-1a2b3c4d5e6f", name: "ops")

    static func joined(_ channel: ChannelInfo, ssrc: UInt32) -> Joined {
        let member = MemberInfo(id: "0123456789ab", name: "Ann", user: "ann", priority: 0, receiveOnly: false)
        return Joined(
            channel: channel, member: member,
            media: MediaParameters(
                ssrc: ssrc, listenSSRC: ssrc ^ 0x5A5A_5A5A, port: 7700, security: .plain, suite: nil, key: nil,
                payloadType: 111),
            floor: FloorState(state: .idle), members: [member])
    }

    static func bridge() throws -> (WebSocketControlBridge, EmbeddedChannel) {
        let bridge = WebSocketControlBridge(
            relayHost: "127.0.0.1", metrics: ServerMetrics().web, logger: Logger(label: "test"))
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(bridge)
        return (bridge, channel)
    }

    @Test("joined, welcome and left sent by the session tell the gateway which memberships the page has")
    func typedEventsTellTheGateway() throws {
        let (bridge, channel) = try Self.bridge()
        defer { _ = try? channel.finish() }
        func sent(_ message: ControlMessage) throws {
            try channel.pipeline.triggerUserOutboundEvent(ControlMessageSent(message: message)).wait()
        }
        try sent(.joined(Self.joined(Self.deck, ssrc: 1001)))
        #expect(bridge.gatewayChannels == [Self.deck.id])
        try sent(
            .welcome(
                Welcome(
                    version: 1, server: "pttd", session: "1", heartbeatIntervalMs: 15_000,
                    memberships: [Self.joined(Self.ops, ssrc: 1002)])))
        #expect(bridge.gatewayChannels == [Self.deck.id, Self.ops.id])
        try sent(.left(Left(channel: Self.deck, reason: .kicked)))
        #expect(bridge.gatewayChannels == [Self.ops.id])
        try sent(.floorIdle(FloorChannelEvent(channel: Self.ops)))
        #expect(bridge.gatewayChannels == [Self.ops.id])
    }

    @Test("bytes written are only passed on as text messages: a joined frame's bytes alone add no membership")
    func bytesAreNotRead() throws {
        let (bridge, channel) = try Self.bridge()
        defer { _ = try? channel.finish() }
        let frame = try ControlFrame(.joined(Self.joined(Self.deck, ssrc: 1001)))
        try channel.writeOutbound(frame.bytes)
        let written = try #require(try channel.readOutbound(as: WebSocketFrame.self))
        #expect(written.opcode == .text)
        #expect(written.data.readableBytes == frame.bytes.readableBytes - 4)
        #expect(bridge.gatewayChannels.isEmpty)
    }
}

/// What reaches the socket end of a session's pipeline, in order: typed events and frame bytes.
private final class OutboundRecorder: ChannelOutboundHandler, @unchecked Sendable {
    typealias OutboundIn = ByteBuffer
    enum Seen: Equatable {
        case sent(ControlMessage.Kind)
        case bytes
    }
    var seen: [Seen] = []

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        seen.append(.bytes)
        context.write(data, promise: promise)
    }

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        if let sent = event as? ControlMessageSent { seen.append(.sent(sent.message.kind)) }
        context.triggerUserOutboundEvent(event, promise: promise)
    }
}

@Suite("Control session: typed events for the frames it writes")
struct ControlMessageSentTests {
    @Test("joined, welcome and left are announced right before their bytes; other frames are not")
    func announcedBeforeTheirBytes() throws {
        let recorder = OutboundRecorder()
        let channel = EmbeddedChannel(handler: recorder)
        defer { _ = try? channel.finish() }
        let session = ControlSession(
            id: 1, channel: channel, limits: ConnectionLimitsInEffect(ServerConfiguration().limits),
            metrics: ServerMetrics(), announcesMemberships: true, logger: Logger(label: "test"))
        let deck = WebSocketControlBridgeTests.deck
        session.send(.joined(WebSocketControlBridgeTests.joined(deck, ssrc: 1001)))
        session.send(.floorIdle(FloorChannelEvent(channel: deck)))
        session.send(
            .welcome(Welcome(version: 1, server: "pttd", session: "1", heartbeatIntervalMs: 15_000, memberships: [])))
        session.send(.left(Left(channel: deck, reason: .left)))
        #expect(
            recorder.seen == [
                .sent(.joined), .bytes, .bytes, .sent(.welcome), .bytes, .sent(.left), .bytes,
            ])
    }

    @Test("a control connection's session announces nothing: no handler listens there")
    func controlConnectionsAnnounceNothing() throws {
        let recorder = OutboundRecorder()
        let channel = EmbeddedChannel(handler: recorder)
        defer { _ = try? channel.finish() }
        let session = ControlSession(
            id: 1, channel: channel, limits: ConnectionLimitsInEffect(ServerConfiguration().limits),
            metrics: ServerMetrics(), logger: Logger(label: "test"))
        session.send(.joined(WebSocketControlBridgeTests.joined(WebSocketControlBridgeTests.deck, ssrc: 1001)))
        session.send(.left(Left(channel: WebSocketControlBridgeTests.deck, reason: .left)))
        #expect(recorder.seen == [.bytes, .bytes])
    }
}
