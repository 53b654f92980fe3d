import Logging
import Media
import NIOCore
import NIOPosix
import Opus
import PTTCore

/// The audio relay: one UDP socket; forwards the floor holder's Opus frames to every other member of its
/// channel, re-protected per listener, and nobody else's.
///
/// Everything here runs on the relay's event loop: the control plane pushes channel configurations with
/// ``update(_:)`` (a hop per change, never per packet), and the relay reports what it hears back at a
/// bounded rate. See Docs/ARCHITECTURE.md for the packet path.
final class MediaRelay: @unchecked Sendable {
    // @unchecked: all mutable state is touched only on `eventLoop`.
    let eventLoop: EventLoop
    let secure: Bool
    let silenceTimeout: TimeAmount
    let metrics: ServerMetrics
    var logger: Logger
    /// Where reports go (set once before the relay starts).
    var report: (@Sendable (RelayReport) -> Void)?
    private(set) var datagramChannel: NIOCore.Channel?

    var channels: [ChannelID: RelayChannelState] = [:]
    var membersBySSRC: [UInt32: RelayMember] = [:]
    var membersByID: [MemberID: RelayMember] = [:]
    /// Packets that arrived on an idle floor while an implicit floor request is on its way, per channel.
    var waitingForFloor: [ChannelID: (ssrc: UInt32, since: NIODeadline, packets: [[UInt8]])] = [:]
    static let maxWaitingPackets = 25
    /// Where each datagram is decrypted and checked (one at a time, on the event loop).
    let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 65_536, alignment: 16)
    static let reportInterval = TimeAmount.milliseconds(250)

    /// Whether audio on an idle floor is held for an implicit floor request (`implicitFloorRequest`).
    let holdsForImplicitRequest: Bool

    init(eventLoop: EventLoop, secure: Bool, implicitFloorRequest: Bool, silenceTimeout: Duration, metrics: ServerMetrics, logger: Logger) {
        self.eventLoop = eventLoop
        self.secure = secure
        self.holdsForImplicitRequest = implicitFloorRequest
        self.silenceTimeout = .nanoseconds(silenceTimeout.nanoseconds)
        self.metrics = metrics
        self.logger = logger
    }

    deinit { scratch.deallocate() }

    /// Binds the UDP socket. Reads up to 64 datagrams per system call.
    func bind(host: String, port: Int) async throws {
        let handler = MediaRelayHandler(relay: self)
        let channel = try await DatagramBootstrap(group: eventLoop)
            .channelOption(.socketOption(.so_reuseaddr), value: 1)
            .channelOption(.datagramVectorReadMessageCount, value: 64)
            .channelOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: 64 * 4096))
            .channelOption(.socketOption(.so_rcvbuf), value: 4 << 20)
            .channelOption(.socketOption(.so_sndbuf), value: 4 << 20)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(handler) }
            }
            .bind(host: host, port: port).get()
        datagramChannel = channel
    }

    var port: Int { datagramChannel?.localAddress?.port ?? 0 }

    func close() async {
        try? await datagramChannel?.close()
    }

    // MARK: Configuration from the control plane

    /// Replaces what the relay knows about a channel.
    func update(_ config: RelayChannelConfig) {
        eventLoop.execute { self.apply(config) }
    }

    /// Forgets a channel and its members.
    func remove(_ channel: ChannelID) {
        eventLoop.execute {
            guard let state = self.channels.removeValue(forKey: channel) else { return }
            for member in state.config.members { self.forget(member.id) }
            self.waitingForFloor[channel] = nil
        }
    }

    private func forget(_ id: MemberID) {
        guard let member = membersByID.removeValue(forKey: id) else { return }
        if membersBySSRC[member.config.ssrc] === member { membersBySSRC[member.config.ssrc] = nil }
    }

    private func apply(_ config: RelayChannelConfig) {
        eventLoop.preconditionInEventLoop()
        let previous = channels[config.channel]?.config.members ?? []
        let keep = Set(config.members.map(\.id))
        for old in previous where !keep.contains(old.id) { forget(old.id) }
        for member in config.members {
            if let existing = membersByID[member.id], existing.config == member, existing.channel == config.channel { continue }
            do {
                let crypto = try MemberCrypto(key: member.key, ssrc: member.ssrc, listenSSRC: member.listenSSRC, secure: secure)
                let fresh = RelayMember(config: member, channel: config.channel, crypto: crypto)
                if let old = membersByID[member.id] {
                    fresh.address = old.address
                    fresh.lastHeard = old.lastHeard
                    fresh.nextSequence = old.nextSequence
                }
                forget(member.id)
                membersByID[member.id] = fresh
                membersBySSRC[member.ssrc] = fresh
            } catch {
                logger.error("cannot set up media protection for member", metadata: ["member": "\(member.id)", "error": "\(error)"])
            }
        }
        let members = config.members.compactMap { membersByID[$0.id] }
        if channels[config.channel] == nil { channels[config.channel] = RelayChannelState(config: config) }
        channels[config.channel]!.apply(config, members: members)
        releaseWaitingPackets(config.channel)
    }

    /// Forwards packets held while an implicit floor request was granted; drops them if it was not.
    private func releaseWaitingPackets(_ channel: ChannelID) {
        guard let waiting = waitingForFloor[channel], let state = channels[channel], let holder = state.holderSSRC else { return }
        waitingForFloor[channel] = nil
        // Held audio is only worth sending to the member it was held for, and while it is recent.
        guard holder == waiting.ssrc, NIODeadline.now() - waiting.since < .seconds(1),
              let speaker = membersBySSRC[holder], let context = handlerContext else {
            metrics.mediaDropped(reason: "not-floor-holder", count: waiting.packets.count)
            return
        }
        var pending = PendingWrites()
        for var packet in waiting.packets {
            packet.withUnsafeMutableBytes { bytes in
                forward(bytes, length: bytes.count, from: speaker, now: .now(), into: &pending, allocator: context.channel.allocator)
            }
        }
        pending.flush(context)
    }

    /// The handler's context, to write held packets outside a read.
    var handlerContext: ChannelHandlerContext?
}
