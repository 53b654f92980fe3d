import CUDPBatch
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import PTTCore
import RTP
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The audio relay: one UDP socket; forwards the floor holder's Opus frames to every other member of its
/// channel, re-protected per listener, and nobody else's.
///
/// Everything here runs on the relay's event loop, which serves nothing else: the control plane sends
/// what changed with ``apply(_:)`` (a hop per batch of changes, never per packet), and the relay reports
/// what it hears back at a bounded rate. The per-packet rules are in ``RelayRules``; the socket's
/// ``MediaRelayHandler`` owns the pending writes. See Docs/ARCHITECTURE.md for the packet path.
public final class MediaRelay: @unchecked Sendable {
    // @unchecked: all mutable state is touched only on `eventLoop`.
    public let eventLoop: EventLoop
    let secure: Bool
    /// A listener not heard from for this long gets nothing (changed by ``reconfigure(_:)``).
    var silenceTimeout: TimeAmount
    let metrics: RelayMetrics
    var logger: Logger
    var rules: RelayRules
    /// Where reports go: set before the relay binds, cleared on its event loop.
    public var report: (@Sendable (RelayReport) -> Void)?
    /// Where recorded bursts' packets go: set before the relay binds.
    public var recordingSink: (@Sendable (RecordingHandOff) -> Void)? {
        get { keeping.recordings.sink }
        set { keeping.recordings.sink = newValue }
    }
    /// The relay's UDP socket, once bound.
    public private(set) var datagramChannel: NIOCore.Channel?
    /// The socket's handler while it is in the pipeline: writes go through it.
    weak var handler: MediaRelayHandler? { didSet { keeping.handler = handler } }

    var channels: [ChannelID: RelayChannelState] = [:]
    var membersBySSRC: [UInt32: RelayMember] = [:]
    var membersByID: [MemberID: RelayMember] = [:]
    /// Broadcasts running (``RelayBroadcast``).
    private(set) lazy var broadcasts = RelayBroadcasts(relay: self)
    /// Scanning devices' lists (``RelayScans``).
    private(set) lazy var scans = RelayScans(relay: self)
    /// Packets that arrived on an idle floor while an implicit floor request is on its way, per channel.
    var held: [ChannelID: (hold: FloorHold, packets: [[UInt8]])] = [:]
    /// Kept bursts, the members playing them (catch-up, replay), and recorded bursts' hand-off.
    let keeping: BurstKeeping
    /// Changes the control plane sent that the relay has not applied yet, in order, and whether there are any.
    /// A pthread lock (`NIOLockedValueBox`), not `Synchronization.Mutex`: ThreadSanitizer does not see the order a
    /// contended `Mutex` (a futex) gives, and reported the plane's append and the relay's removal as a race.
    let pendingChanges = NIOLockedValueBox<[RelayChange]>([])
    let hasPendingChanges = Atomic<Bool>(false)
    /// The relay's monotonic time (tests set their own).
    var clock: () -> NIODeadline = { NIODeadline.now() } { didSet { keeping.clock = clock } }
    /// Where each datagram is decrypted and checked (one at a time, on the event loop).
    let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 65_536, alignment: 16)
    static let reportInterval = TimeAmount.milliseconds(250)

    /// - Parameters:
    ///   - eventLoop: the loop the relay's socket and state live on; give it one that serves nothing else.
    ///   - secure: SRTP with each member's key, or plain RTP.
    ///   - implicitFloorRequest: whether audio on an idle floor is held for an implicit floor request.
    ///   - silenceTimeout: a listener not heard from for this long gets nothing.
    ///   - catchUp: whether bursts are kept, who catches up with them, and the bounds.
    ///   - maxBurstDuration: a burst keeps packets from this long at most (the floor's longest talk time).
    public init(
        eventLoop: EventLoop, secure: Bool, implicitFloorRequest: Bool, silenceTimeout: Duration,
        catchUp: CatchUpConfiguration = CatchUpConfiguration(mode: .off), maxBurstDuration: Duration = .seconds(32),
        metrics: RelayMetrics, logger: Logger
    ) {
        self.keeping = BurstKeeping(
            configuration: catchUp, maxDuration: maxBurstDuration, eventLoop: eventLoop, metrics: metrics)
        self.eventLoop = eventLoop
        self.secure = secure
        self.rules = RelayRules(holdsForImplicitRequest: implicitFloorRequest)
        self.silenceTimeout = .nanoseconds(silenceTimeout.nanoseconds)
        self.metrics = metrics
        self.logger = logger
        keeping.replayEnded = { [weak self] member, burst, outcome in
            self?.report?(.replayEnded(member.config.id, channel: member.channel, burst: burst, outcome: outcome))
        }
    }

    deinit { scratch.deallocate() }

    /// What a configuration reload may change in a running relay.
    public struct Settings: Sendable, Equatable {
        public var implicitFloorRequest: Bool
        public var silenceTimeout: Duration
        public var catchUp: CatchUpConfiguration
        public var maxBurstDuration: Duration
        public init(
            implicitFloorRequest: Bool, silenceTimeout: Duration, catchUp: CatchUpConfiguration,
            maxBurstDuration: Duration
        ) {
            self.implicitFloorRequest = implicitFloorRequest
            self.silenceTimeout = silenceTimeout
            self.catchUp = catchUp
            self.maxBurstDuration = maxBurstDuration
        }
    }

    /// Applies a configuration reload, on the relay's loop between two read cycles: nothing in flight is dropped.
    /// The burst being kept goes on under the new bounds; playbacks running keep the speed they started with.
    public func reconfigure(_ settings: Settings) -> EventLoopFuture<Void> {
        eventLoop.submit {
            self.rules.holdsForImplicitRequest = settings.implicitFloorRequest
            self.silenceTimeout = .nanoseconds(settings.silenceTimeout.nanoseconds)
            self.keeping.reconfigure(settings.catchUp, maxDuration: settings.maxBurstDuration)
        }
    }

    /// Opens and binds the UDP socket (itself, so that the handler can send each fan-out with `sendmmsg` on
    /// its descriptor) and hands it to NIO for reading: up to 64 datagrams per system call, one such call
    /// per read cycle.
    public func bind(host: String, port: Int) async throws {
        var message = [CChar](repeating: 0, count: 256)
        let descriptor = cudp_open(host, Int32(port), 4 << 20, 4 << 20, &message, message.count)
        guard descriptor >= 0 else {
            throw RelaySocketError(
                message: String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        let handler = MediaRelayHandler(relay: self, descriptor: descriptor)
        let channel: NIOCore.Channel
        do {
            channel = try await DatagramBootstrap(group: eventLoop)
                .channelOption(.datagramVectorReadMessageCount, value: 64)
                // One vector read per read cycle: with a thousand listeners a datagram costs milliseconds of
                // sends, and a cycle of 4 × 64 datagrams would keep the loop from everything else (closing the
                // socket at shutdown among them) for a second.
                .channelOption(.maxMessagesPerRead, value: 1)
                .channelOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: 64 * 4096))
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(handler) }
                }
                .withBoundSocket(descriptor).get()
        } catch {
            Glibc.close(descriptor)
            throw error
        }
        datagramChannel = channel
    }

    /// The UDP port the relay listens on.
    public var port: Int { datagramChannel?.localAddress?.port ?? 0 }

    /// Closes the socket and drops the report callback (which refers to the control plane).
    public func close() async {
        try? await datagramChannel?.close()
        try? await eventLoop.submit {
            // What recorded bursts kept goes to the recorder, with their end.
            self.keeping.stop()
            self.report = nil
        }.get()
    }

    // MARK: Changes from the control plane

    /// Applies what changed, in order, on the relay's event loop: at the latest before the next datagram is
    /// handled (NIO handles I/O before queued tasks, so a datagram read after a change was sent, such as a new
    /// floor holder's first packet, would otherwise be decided without it). A floor that goes idle is the
    /// exception: it waits for the end of the read cycle (``applyPendingChanges(beforeDatagram:)``).
    public func apply(_ changes: [RelayChange]) {
        guard !changes.isEmpty else { return }
        pendingChanges.withLockedValue { $0.append(contentsOf: changes) }
        hasPendingChanges.store(true, ordering: .releasing)
        eventLoop.execute { self.applyPendingChanges() }
    }

    /// Applies the changes sent so far, in order (on the relay's event loop).
    ///
    /// Before a datagram (`beforeDatagram`), changes stop at the first floor that goes idle: it and what follows
    /// wait for the queued task, after the read cycle. A talker sends its last packet and then its
    /// `floor-release`; when the relay's thread is late, both are waiting together, and the packet, sent first,
    /// must not be decided after the release (it would be dropped, and every listener would lose the burst's
    /// last 20 ms). A new holder is never deferred: a release followed by a grant in the same channel is applied
    /// at once, so the new holder's first packet finds it the holder.
    func applyPendingChanges(beforeDatagram: Bool = false) {
        guard hasPendingChanges.load(ordering: .acquiring) else { return }
        let changes = pendingChanges.withLockedValue { pending -> [RelayChange] in
            if beforeDatagram, let idle = RelayChange.deferredRelease(in: pending) {
                defer { pending.removeFirst(idle) }
                return Array(pending[..<idle])
            }
            hasPendingChanges.store(false, ordering: .releasing)
            defer { pending.removeAll() }
            return pending
        }
        for change in changes { apply(change) }
    }

    private func apply(_ change: RelayChange) {
        switch change {
        case .join(let config): join(config)
        case .leave(let id): leave(id)
        case .floor(let channel, let holder): setFloor(channel, holder: holder)
        case .released(let channel, let member, let grace): release(channel, by: member, grace: grace)
        case .woken(let channel, let members): woken(channel, members)
        case .record(let channel, let key): record(channel, key: key)
        case .replay(let member, let burst, let speaker, let packets):
            replay(burst, speakerSSRC: speaker, packets: packets, to: member)
        case .links(let channel, let links): setLinks(channel, links)
        case .broadcast(let source, let broadcast, let grace): broadcasts.set(source, broadcast, grace: grace)
        case .scan(let device, let members, let catchUp): scans.set(device, members, catchUp: catchUp)
        case .removeChannel(let id):
            setLinks(id, nil)
            guard let state = channels.removeValue(forKey: id) else { return }
            for member in state.members { forget(member) }
            if let burst = state.burst { keeping.close(burst) }
            held[id] = nil
            scans.floorChanged(id)
        }
    }

    private func join(_ config: RelayMemberConfig) {
        let existing = membersByID[config.id]
        if let existing, existing.config == config { return }
        let crypto: MemberCrypto
        do {
            crypto = try MemberCrypto(
                key: config.key, suite: config.suite, ssrc: config.ssrc, listenSSRC: config.listenSSRC, secure: secure)
        } catch {
            return logger.error(
                "cannot set up media protection for member", metadata: ["member": "\(config.id)", "error": "\(error)"])
        }
        let member =
            existing.map { $0.replaced(by: config, crypto: crypto) } ?? RelayMember(config: config, crypto: crypto)
        if let existing {
            if existing.channel != config.channel {
                channels[existing.channel]?.remove(existing.config.id)
                settleBurst(existing.channel)
            }
            forget(existing)
        }
        membersByID[config.id] = member
        membersBySSRC[config.ssrc] = member
        channels[config.channel, default: RelayChannelState(channel: config.channel)].put(member)
        scans.memberChanged(config.id)
    }

    private func leave(_ id: MemberID) {
        guard let member = membersByID[id] else { return }
        forget(member)
        channels[member.channel]?.remove(id)
        settleBurst(member.channel)
        if channels[member.channel]?.isEmpty == true { channels[member.channel] = nil }
    }

    private func forget(_ member: RelayMember) {
        keeping.endPlayback(of: member, .cancelled)
        if membersByID[member.config.id] === member { membersByID[member.config.id] = nil }
        if membersBySSRC[member.config.ssrc] === member { membersBySSRC[member.config.ssrc] = nil }
    }

    private func setFloor(_ channel: ChannelID, holder: MemberID?) {
        channels[channel, default: RelayChannelState(channel: channel)].setHolder(holder)
        settleBurst(channel)
        scans.floorChanged(channel)
        releaseHeldPackets(channel)
    }

    /// Forwards packets held while an implicit floor request was granted; drops them if it was not.
    func releaseHeldPackets(_ channel: ChannelID) {
        guard let waiting = held[channel], let state = channels[channel], state.holderSSRC != nil else { return }
        held[channel] = nil
        let now = clock()
        guard rules.releasesHold(waiting.hold, holderSSRC: state.holderSSRC, now: now),
            let speaker = membersBySSRC[waiting.hold.ssrc],
            let handler
        else {
            metrics.dropped(.notFloorHolder, count: waiting.packets.count)
            return
        }
        for var packet in waiting.packets {
            packet.withUnsafeMutableBytes { bytes in
                guard let header = try? RTPHeader.parse(UnsafeRawBufferPointer(bytes)) else { return }
                forward(bytes, header: header, from: speaker, now: now, via: handler)
            }
        }
        handler.flush()
    }
}

/// The relay's UDP socket could not be opened or bound; the message says which step and why.
public struct RelaySocketError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { "audio relay: \(message)" }
}
