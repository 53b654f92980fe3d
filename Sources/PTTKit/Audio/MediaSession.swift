import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import PTTProtocol
import PortableSRTP
import RTP

/// A member's audio over UDP to the relay: sends Opus as (S)RTP with the member's SSRC and key, receives
/// the channel's stream, and keeps its address alive with RTCP receiver reports.
///
/// Roaming: when the socket closes by itself (a send failed because the local address went away or the
/// network became unreachable, as when a phone moves to another Wi-Fi network), the session opens a new
/// socket towards the relay, retrying with back-off, and carries on with the same SSRC, keys, SRTP
/// contexts and sequence numbers. Its first authenticated packet moves the member's address on the relay.
public final class MediaSession: Sendable {
    public let parameters: MediaParameters
    /// Every authenticated packet received, in arrival order.
    public let received: AsyncStream<ReceivedAudio>
    private let host: String
    private let eventLoop: EventLoop
    private let inbound: PortableSRTPSession?
    private let continuation: AsyncStream<ReceivedAudio>.Continuation
    private let sender: NIOLockedValueBox<Sender>
    private let link = NIOLockedValueBox(Link())
    private let keepAlive: NIOLockedValueBox<RepeatedTask?>
    /// Called after the socket was opened again because the local address went away.
    private let addressChanged: (@Sendable () -> Void)?

    struct Sender {
        var sequence: UInt16
        var srtp: PortableSRTPSession?
        var rtcpSRTP: PortableSRTPSession?
    }

    /// The current socket, if one is open.
    struct Link {
        var channel: Channel?
        var closing = false
        /// A new socket is being opened (after the old one closed, or for a new network path).
        var reopening = false
        var reopened = 0
        var replayed = 0
    }

    /// How many times the socket was opened again: after it closed by itself (roaming), or for a new network path.
    public var socketReopens: Int { link.withLockedValue { $0.reopened } }

    /// Packets dropped by SRTP replay protection: copies of packets already received (duplicated on the way).
    public var replayedPackets: Int { link.withLockedValue { $0.replayed } }

    /// The SRTP profile the membership's `suite` names (the default suite when absent).
    public static func profile(of parameters: MediaParameters) throws -> SRTPProfile {
        guard let name = parameters.suite else { return .aesCM128HMACSHA1_80 }
        guard let profile = SRTPProfile(name: name) else {
            throw ControlClientError.unexpectedReply(
                "joined names SRTP suite '\(name)', which this client does not speak")
        }
        return profile
    }

    /// Opens a UDP socket towards the relay at `host` (the control connection's host) and the port in
    /// `parameters`, and sends a first keep-alive so the relay learns where to send.
    ///
    /// `firstSequence` continues the sequence numbers of an earlier session of the same membership (a server that
    /// restarted on another port): the listener's relay then sees one stream. Random when nil. `addressChanged` is
    /// called each time the socket was opened again because the local address went away: the network path changed,
    /// and the control connection may be dead too.
    public static func open(
        host: String, parameters: MediaParameters, keepAliveInterval: Duration = .seconds(5),
        firstSequence: UInt16? = nil, group: EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        addressChanged: (@Sendable () -> Void)? = nil
    ) async throws -> MediaSession {
        let secure = parameters.security == .srtp
        var key: [UInt8] = []
        let profile = try Self.profile(of: parameters)
        if secure {
            guard let text = parameters.key, let bytes = Data(base64Encoded: text), bytes.count == profile.keyLength
            else {
                throw ControlClientError.unexpectedReply("joined without a usable SRTP key")
            }
            key = Array(bytes)
        }
        let (stream, continuation) = AsyncStream<ReceivedAudio>.makeStream(bufferingPolicy: .bufferingNewest(50_000))
        let inbound =
            secure
            ? try PortableSRTPSession(
                direction: .inbound, key: key, ssrc: .specific(parameters.listenSSRC), profile: profile)
            : nil
        let outbound =
            secure
            ? try PortableSRTPSession(
                direction: .outbound, key: key, ssrc: .specific(parameters.ssrc), profile: profile) : nil
        var generator = SystemRandomNumberGenerator()
        let session = MediaSession(
            parameters: parameters, received: stream, continuation: continuation, host: host, eventLoop: group.next(),
            inbound: inbound, addressChanged: addressChanged,
            sender: Sender(
                sequence: firstSequence ?? UInt16.random(in: 0...UInt16.max, using: &generator), srtp: outbound,
                rtcpSRTP: outbound))
        let channel = try await session.makeChannel().get()
        session.link.withLockedValue { $0.channel = channel }
        // A few keep-alives at first: the relay may not know this membership yet when the very first one
        // arrives (it learns of a join a moment after the control plane answers), and UDP may lose one.
        session.sendKeepAlives(at: [0, 50, 200, 500, 1_000])
        let interval = TimeAmount.nanoseconds(keepAliveInterval.nanosecondsClamped)
        session.keepAlive.withLockedValue {
            $0 = session.eventLoop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { [weak session] _ in
                session?.sendKeepAlive()
            }
        }
        return session
    }

    private init(
        parameters: MediaParameters, received: AsyncStream<ReceivedAudio>,
        continuation: AsyncStream<ReceivedAudio>.Continuation,
        host: String, eventLoop: EventLoop, inbound: PortableSRTPSession?,
        addressChanged: (@Sendable () -> Void)?, sender: Sender
    ) {
        self.addressChanged = addressChanged
        self.parameters = parameters
        self.received = received
        self.continuation = continuation
        self.host = host
        self.eventLoop = eventLoop
        self.inbound = inbound
        self.sender = NIOLockedValueBox(sender)
        self.keepAlive = NIOLockedValueBox(nil)
    }

    /// A socket connected to the relay, on this session's event loop (the inbound SRTP context is used there only).
    /// The socket itself is made on the loop's thread too, as NIO makes TCP sockets: a socket belongs to the network
    /// namespace of the thread that makes it, so an app's (or a test's) event loop group decides where both live.
    private func makeChannel() -> EventLoopFuture<Channel> {
        let handler = MediaReceiveHandler(
            srtp: inbound, continuation: continuation, closed: { [weak self] in self?.socketClosed($0) },
            replayed: { [weak self] in self?.link.withLockedValue { $0.replayed += 1 } })
        let (eventLoop, host, port) = (eventLoop, host, parameters.port)
        return eventLoop.flatSubmit {
            DatagramBootstrap(group: eventLoop)
                .channelOption(.socketOption(.so_rcvbuf), value: 1 << 20)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(handler) }
                }
                .connect(host: host, port: port)
        }
    }

    /// The socket closed. After `close()` that ends the stream; otherwise a send failed (address gone,
    /// network unreachable) and a new socket is opened. A socket that was replaced (``networkPathChanged()``) or
    /// that closed while a new one is being opened changes nothing.
    private func socketClosed(_ channel: Channel) {
        let reopen = link.withLockedValue { link -> Bool? in
            if let current = link.channel, current !== channel { return nil }
            link.channel = nil
            if link.closing { return false }
            if link.reopening { return nil }
            link.reopening = true
            return true
        }
        switch reopen {
        case true?: reopenSocket(after: .milliseconds(20))
        case false?: continuation.finish()
        case nil: break
        }
    }

    private func reopenSocket(after delay: TimeAmount) {
        eventLoop.scheduleTask(in: delay) { [weak self] in
            guard let self, !self.link.withLockedValue({ $0.closing }) else { return }
            self.makeChannel().whenComplete { result in
                switch result {
                case .success(let channel):
                    if self.adopt(channel).kept {
                        self.sendKeepAlives(at: [0, 50, 200])
                        self.addressChanged?()
                    } else {
                        channel.close(promise: nil)
                    }
                case .failure:
                    self.reopenSocket(after: min(delay * 2, .seconds(1)))
                }
            }
        }
    }

    /// Makes `channel` the session's socket (not after `close()`); `old` is the one it replaces.
    private func adopt(_ channel: Channel) -> (kept: Bool, old: Channel?) {
        link.withLockedValue { link in
            link.reopening = false
            guard !link.closing else { return (false, nil) }
            let old = link.channel
            link.channel = channel
            link.reopened += 1
            return (true, old)
        }
    }

    /// The network path changed (an app's `NWPathMonitor` said so): a UDP socket does not fail when its address
    /// goes away, it only stops receiving, so a new socket is opened at once on the new path and keep-alives move the
    /// relay to it (its first authenticated packet does). Returns once they are sent. The old socket is closed half a
    /// second later: until the relay has moved, what it sends there is still read if that address still works.
    /// While a socket is being opened again already, that one takes the new path.
    public func networkPathChanged() async {
        let proceed = link.withLockedValue { link -> Bool in
            guard !link.closing, !link.reopening else { return false }
            link.reopening = true
            return true
        }
        guard proceed else { return }
        let fresh: Channel
        do {
            fresh = try await makeChannel().get()
        } catch {
            // No route on the new path yet: keep the old socket, or, if it is gone, retry with back-off.
            let gone = link.withLockedValue { link -> Bool in
                guard link.channel == nil, !link.closing else {
                    link.reopening = false
                    return false
                }
                return true
            }
            if gone { reopenSocket(after: .milliseconds(20)) }
            return
        }
        let (kept, old) = adopt(fresh)
        guard kept else {
            try? await fresh.close()
            return
        }
        sendKeepAlives(at: [0, 50, 200])
        if let old { eventLoop.scheduleTask(in: .milliseconds(500)) { old.close(promise: nil) } }
    }

    /// The sequence number the next packet sent gets.
    public var nextSequence: UInt16 { sender.withLockedValue { $0.sequence } }

    /// The event loop this session's socket and timers run on.
    public var loop: EventLoop { eventLoop }

    /// Sends keep-alives at once and after each of `delays` milliseconds: after a reconnect, so that a relay that
    /// restarted learns this member's address before the next periodic one.
    public func sendKeepAlives(at delays: [Int64]) {
        for delay in delays {
            if delay == 0 {
                sendKeepAlive()
                continue
            }
            eventLoop.scheduleTask(in: .milliseconds(delay)) { [weak self] in self?.sendKeepAlive() }
        }
    }

    private func write(_ bytes: [UInt8]) {
        // While a new socket is being opened there is none: the packet is lost, as on the air.
        link.withLockedValue { $0.channel }?.writeAndFlush(ByteBuffer(bytes: bytes), promise: nil)
    }

    /// Sends one Opus packet with the next sequence number.
    public func send(opus payload: [UInt8], timestamp: UInt32, marker: Bool = false) throws {
        let bytes = try sender.withLockedValue { sender -> [UInt8] in
            let sequence = sender.sequence
            sender.sequence &+= 1
            var packet = try RTPHeader.makePacket(
                marker: marker, payloadType: UInt8(parameters.payloadType),
                sequenceNumber: sequence, timestamp: timestamp, ssrc: parameters.ssrc, payload: payload)
            if let srtp = sender.srtp { packet = try srtp.protect(packet) }
            return packet
        }
        write(bytes)
    }

    /// Sends an RTCP receiver report: keeps this member's address known to the relay.
    public func sendKeepAlive() {
        guard
            let bytes = try? sender.withLockedValue({ sender -> [UInt8] in
                var packet = try RTCPWriter.makeKeepAlive(ssrc: parameters.ssrc, cname: "ptt")
                if let srtp = sender.rtcpSRTP { packet = try srtp.protectRTCP(packet) }
                return packet
            })
        else { return }
        write(bytes)
    }

    public func close() async {
        keepAlive.withLockedValue { $0?.cancel() }
        let channel = link.withLockedValue { link -> Channel? in
            link.closing = true
            return link.channel
        }
        if let channel { try? await channel.close() } else { continuation.finish() }
    }
}
