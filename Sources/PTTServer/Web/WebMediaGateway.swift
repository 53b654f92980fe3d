import Foundation
import Logging
import NIOCore
import NIOPosix
import PTTProtocol
import RTP
import SRTP

/// A browser member's audio, bridged to the relay: the page sends and receives plain RTP packets as binary
/// WebSocket messages (inside TLS); the gateway speaks to the relay over UDP on loopback like any member, with
/// the membership's SSRC, SRTP key and keep-alives. The relay does not know a browser from a phone, so its
/// per-packet path is the same for both.
///
/// One UDP socket per browser connection, opened at its first membership, serves all its memberships: the
/// relay tells them apart by SSRC (and sends each its stream with the membership's `listenSSRC`). Confined to
/// the WebSocket connection's event loop.
final class WebMediaGateway: @unchecked Sendable {
    // @unchecked: every method runs on `eventLoop` (the connection's), which owns all the state.

    /// One membership of the browser: the SSRC the page sends with, the one the relay answers with, and keys.
    struct Membership {
        let channelID: String
        let ssrc: UInt32
        let listenSSRC: UInt32
        let outbound: SRTPSession?
        let inbound: SRTPSession?
    }

    /// The largest RTP packet a page may send (an Opus packet of 120 ms at 510 kb/s is about 7.7 KB; Chrome
    /// sends 20 ms frames of a few hundred bytes).
    static let maxPacketBytes = 8 * 1024
    /// A membership's keep-alive interval: well inside the relay's silence timeout (30 s by default).
    static let keepAliveInterval = TimeAmount.seconds(5)

    private let eventLoop: EventLoop
    private let relayHost: String
    private let metrics: WebMetrics
    private let logger: Logger
    /// Hands an unprotected RTP packet from the relay to the page.
    private let deliver: (ByteBuffer) -> Void
    private var memberships: [UInt32: Membership] = [:]
    private var bySSRCHeard: [UInt32: UInt32] = [:]
    private var relay: SocketAddress?
    private var socket: Channel?
    private var opening = false
    private var pending: [(Membership, [UInt8])] = []
    private var keepAlive: RepeatedTask?
    private var closed = false

    /// `relayHost` is the address the gateway sends to: the relay's own (loopback when it listens on all).
    init(
        eventLoop: EventLoop, relayHost: String, metrics: WebMetrics, logger: Logger,
        deliver: @escaping (ByteBuffer) -> Void
    ) {
        self.eventLoop = eventLoop
        self.relayHost = relayHost
        self.metrics = metrics
        self.logger = logger
        self.deliver = deliver
    }

    /// The address to reach a relay bound to `host` from this machine.
    static func relayHost(forBindHost host: String) -> String {
        switch host {
        case "0.0.0.0", "": "127.0.0.1"
        case "::", "[::]": "::1"
        default: host
        }
    }

    /// The memberships the server announced to the page (`joined`, or each of `welcome`'s); a membership
    /// joined again (new key) replaces the old one.
    func joined(_ joined: Joined) {
        eventLoop.preconditionInEventLoop()
        guard !closed else { return }
        let media = joined.media
        var outbound: SRTPSession?
        var inbound: SRTPSession?
        if media.security == .srtp {
            guard let suite = media.suite, let profile = SRTPProfile(name: suite), let text = media.key,
                let key = Data(base64Encoded: text), key.count == profile.keyLength
            else {
                logger.error(
                    "browser bridge: a membership without a usable SRTP key", metadata: ["ssrc": "\(media.ssrc)"])
                return
            }
            do {
                outbound = try SRTPSession(
                    direction: .outbound, key: Array(key), ssrc: .specific(media.ssrc), profile: profile)
                inbound = try SRTPSession(
                    direction: .inbound, key: Array(key), ssrc: .specific(media.listenSSRC), profile: profile)
            } catch {
                logger.error("browser bridge: cannot make SRTP sessions", metadata: ["error": "\(error)"])
                return
            }
        }
        remove(channelID: joined.channel.id)
        let membership = Membership(
            channelID: joined.channel.id, ssrc: media.ssrc, listenSSRC: media.listenSSRC, outbound: outbound,
            inbound: inbound)
        memberships[media.ssrc] = membership
        bySSRCHeard[media.listenSSRC] = media.ssrc
        relay = try? SocketAddress.makeAddressResolvingHost(relayHost, port: media.port)
        // A few keep-alives at first: the relay learns of a join a moment after the plane answers it, and UDP
        // may lose one.
        for delay in [0, 50, 200, 500, 1_000] as [Int64] {
            eventLoop.scheduleTask(in: .milliseconds(delay)) { [weak self] in self?.sendKeepAlive(for: media.ssrc) }
        }
        startKeepAlives()
    }

    /// The channels of the memberships the page has now.
    var channelIDs: Set<String> { Set(memberships.values.map(\.channelID)) }

    /// The membership of channel `channelID` ended (`left`).
    func remove(channelID: String) {
        guard let old = memberships.values.first(where: { $0.channelID == channelID }) else { return }
        memberships[old.ssrc] = nil
        bySSRCHeard[old.listenSSRC] = nil
    }

    /// An RTP packet from the page: its SSRC must be one of this browser's memberships.
    func fromPage(_ buffer: ByteBuffer) {
        guard !closed else { return }
        guard buffer.readableBytes >= 12, buffer.readableBytes <= Self.maxPacketBytes,
            let first = buffer.getInteger(at: buffer.readerIndex, as: UInt8.self), first >> 6 == 2,
            let ssrc = buffer.getInteger(at: buffer.readerIndex + 8, as: UInt32.self)
        else { return metrics.dropped(.malformed) }
        guard let membership = memberships[ssrc] else { return metrics.dropped(.unknownSSRC) }
        let packet = Array(buffer.readableBytesView)
        guard !RTPHeader.isRTCP(packet) else { return metrics.dropped(.malformed) }
        send(packet, for: membership, rtcp: false)
        metrics.bridged(.toRelay)
    }

    /// A datagram from the relay: the stream of one of the memberships, protected with its key.
    func fromRelay(_ envelope: AddressedEnvelope<ByteBuffer>) {
        guard envelope.remoteAddress == relay else { return metrics.dropped(.unauthenticated) }
        var packet = Array(envelope.data.readableBytesView)
        guard packet.count >= 12, !RTPHeader.isRTCP(packet) else { return }
        let ssrc = UInt32(packet[8]) << 24 | UInt32(packet[9]) << 16 | UInt32(packet[10]) << 8 | UInt32(packet[11])
        guard let owner = bySSRCHeard[ssrc], let membership = memberships[owner] else {
            return metrics.dropped(.unauthenticated)
        }
        if let inbound = membership.inbound {
            guard let clear = try? inbound.unprotect(packet) else { return metrics.dropped(.unauthenticated) }
            packet = clear
        }
        metrics.bridged(.toBrowser)
        deliver(ByteBuffer(bytes: packet))
    }

    /// Stops keep-alives and closes the socket: the relay stops hearing this browser, and after its silence
    /// timeout stops sending to it.
    func close() {
        closed = true
        keepAlive?.cancel()
        keepAlive = nil
        memberships.removeAll()
        bySSRCHeard.removeAll()
        pending.removeAll()
        socket?.close(promise: nil)
        socket = nil
    }

    // MARK: The socket towards the relay

    private func startKeepAlives() {
        guard keepAlive == nil else { return }
        keepAlive = eventLoop.scheduleRepeatedTask(
            initialDelay: Self.keepAliveInterval, delay: Self.keepAliveInterval
        ) { [weak self] _ in
            guard let self else { return }
            for ssrc in self.memberships.keys { self.sendKeepAlive(for: ssrc) }
        }
    }

    private func sendKeepAlive(for ssrc: UInt32) {
        guard let membership = memberships[ssrc], let report = try? RTCPWriter.makeKeepAlive(ssrc: ssrc, cname: "web")
        else { return }
        send(report, for: membership, rtcp: true)
    }

    private func send(_ clear: [UInt8], for membership: Membership, rtcp: Bool) {
        var packet = clear
        if let outbound = membership.outbound {
            guard let protected = try? (rtcp ? outbound.protectRTCP(clear) : outbound.protect(clear)) else { return }
            packet = protected
        }
        guard let socket, let relay else {
            // The first packets wait for the socket (bounded: a handful of keep-alives and one frame or two).
            if pending.count < 16 { pending.append((membership, packet)) }
            openSocket()
            return
        }
        socket.writeAndFlush(AddressedEnvelope(remoteAddress: relay, data: ByteBuffer(bytes: packet)), promise: nil)
    }

    private func openSocket() {
        guard !opening, socket == nil, !closed, let relay else { return }
        opening = true
        let loopBound = NIOLoopBound(self, eventLoop: eventLoop)
        DatagramBootstrap(group: eventLoop)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(WebMediaSocketHandler(gateway: loopBound))
                }
            }
            .bind(host: relay.protocol == .inet6 ? "::1" : "127.0.0.1", port: 0)
            .whenComplete { result in
                let gateway = loopBound.value
                gateway.opening = false
                switch result {
                case .success(let channel):
                    guard !gateway.closed else { return channel.close(promise: nil) }
                    gateway.socket = channel
                    let waiting = gateway.pending
                    gateway.pending.removeAll()
                    for (_, packet) in waiting {
                        channel.write(
                            AddressedEnvelope(remoteAddress: relay, data: ByteBuffer(bytes: packet)), promise: nil)
                    }
                    channel.flush()
                case .failure(let error):
                    gateway.logger.error("browser bridge: cannot open a UDP socket", metadata: ["error": "\(error)"])
                }
            }
    }
}

/// Reads the relay's datagrams for one ``WebMediaGateway``.
private final class WebMediaSocketHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    private let gateway: NIOLoopBound<WebMediaGateway>

    init(gateway: NIOLoopBound<WebMediaGateway>) { self.gateway = gateway }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        gateway.value.fromRelay(unwrapInboundIn(data))
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        // ICMP port unreachable while the relay restarts: keep the socket.
    }
}
