#if os(Linux)
import Foundation
import Glibc
import RTP
import SRTP
import Synchronization

/// The load side of a run, on one dedicated thread: the talker's socket and every listener's socket, one epoll
/// set, a timerfd for pacing. No event-loop framework and no allocation per packet: receivers read with
/// `recvmmsg`, read the RTP header in place and record the latency in a histogram; a sample of packets is
/// decrypted (SRTP) and compared byte for byte with what the talker sent.
///
/// The parts: `LoadSockets` (the socket set), `Talker` (sending and the send times), `KeepAlives`, `Receivers`
/// (latency histogram, tallies, `PacketVerifier`), `LateReceivers` (the late listeners, counted apart), `Pacing`
/// (the run's phase and timing); the loop that drives them is in LoadEngine+Loop.swift.
final class LoadEngine: @unchecked Sendable {
    // @unchecked: after `start()` every mutable field is touched only by the engine's thread, except the
    // atomics; `result` is written by the thread before `finished` is set and never again, and read by others
    // only after.

    let configuration: Configuration
    /// 0: keep-alives only; 1: run; 2: abort (or end the thread after the run); 3: after the run, send again
    /// (same mode, nothing counted) until 2, to stop the server under load.
    let command = Atomic<Int>(0)
    /// The run is over and `result` is final. With `Configuration.lingerAfterRun` the thread goes on (idle,
    /// or sending again after command 3) until command 2.
    let finished = Atomic<Bool>(false)
    /// Packets sent after the run (command 3), so the caller can tell the server was still being loaded.
    let tailPacketsSent = Atomic<Int>(0)
    private(set) var result = Result()

    // The engine thread's state.
    let sockets: LoadSockets
    var talker: Talker
    var keepAlives: KeepAlives
    var receivers: Receivers
    /// The late listeners: no keep-alive until `Configuration.lateAfter` seconds into the sending.
    var lateKeepAlives: KeepAlives
    var lateReceivers: LateReceivers
    var pacing = Pacing()

    init(_ configuration: Configuration) throws {
        self.configuration = configuration
        let members = configuration.members
        sockets = try LoadSockets(
            relayPort: configuration.sockets.relayPort, listenerRelayPorts: configuration.sockets.listenerRelayPorts,
            listeners: members.listeners.count,
            lateListeners: members.lateListeners.count, receiveBuffer: configuration.sockets.receiveBuffer,
            timestamps: configuration.sockets.kernelTimestamps)
        let inbound: [SRTPSession?]
        let keepAliveOut: [SRTPSession?]
        let lateInbound: [SRTPSession?]
        let lateKeepAliveOut: [SRTPSession?]
        let talkerOut: SRTPSession?
        do {
            if members.secure {
                inbound = try Self.sessions(.inbound, for: members.listeners)
                keepAliveOut = try Self.sessions(.outbound, for: members.listeners)
                lateInbound = try Self.sessions(.inbound, for: members.lateListeners)
                lateKeepAliveOut = try Self.sessions(.outbound, for: members.lateListeners)
                talkerOut = try SRTPSession(
                    direction: .outbound, key: members.talker.key, ssrc: .specific(members.talker.ssrc))
            } else {
                inbound = members.listeners.map { _ in nil }
                keepAliveOut = inbound
                lateInbound = members.lateListeners.map { _ in nil }
                lateKeepAliveOut = lateInbound
                talkerOut = nil
            }
        } catch {
            sockets.closeAll()
            throw error
        }
        let payloads = PayloadStore(configuration.traffic.payloads)
        talker = Talker(
            fd: sockets.talkerFD, session: talkerOut, ssrc: members.talker.ssrc, payloads: payloads,
            maxPackets: configuration.traffic.maxPackets)
        keepAlives = KeepAlives(
            fds: sockets.listenerFDs, ssrcs: members.listeners.map(\.ssrc), sessions: keepAliveOut,
            interval: configuration.keepAliveInterval)
        receivers = Receivers(
            listenSSRCs: members.listeners.map(\.listenSSRC),
            verifier: PacketVerifier(
                sessions: inbound, talkerSSRC: members.talker.ssrc, payloads: payloads,
                every: configuration.verifyEvery))
        lateKeepAlives = KeepAlives(
            fds: sockets.lateFDs, ssrcs: members.lateListeners.map(\.ssrc), sessions: lateKeepAliveOut,
            interval: configuration.keepAliveInterval)
        lateReceivers = LateReceivers(
            listenSSRCs: members.lateListeners.map(\.listenSSRC), maxPackets: configuration.traffic.maxPackets,
            verifier: PacketVerifier(
                sessions: lateInbound, talkerSSRC: members.talker.ssrc, payloads: payloads,
                every: configuration.verifyEvery))
    }

    /// SRTP sessions for `members`: inbound for their streams (listen SSRC), outbound for their keep-alives.
    private static func sessions(
        _ direction: SRTPSession.Direction, for members: [MemberMedia]
    ) throws
        -> [SRTPSession?]
    {
        try members.map {
            try SRTPSession(
                direction: direction, key: $0.key, ssrc: .specific(direction == .inbound ? $0.listenSSRC : $0.ssrc))
        }
    }

    deinit {
        sockets.closeAll()
        talker.payloads.deallocate()
        talker.deallocate()
        keepAlives.deallocate()
        receivers.deallocate()
        lateKeepAlives.deallocate()
        lateReceivers.deallocate()
    }

    /// Each listener socket's local port.
    var listenerPorts: [Int] { sockets.listenerPorts }
    /// Each late listener socket's local port.
    var latePorts: [Int] { sockets.latePorts }

    func start() {
        let thread = Thread { [self] in
            let failure = self.run()
            self.publish(failure: failure)
        }
        thread.name = "pttbench-load"
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// Sets `finished` (once): `result` is final, with `failure` if the run could not be completed.
    func publish(failure: String?) {
        guard !finished.load(ordering: .relaxed) else { return }
        if let failure { result.failure = failure }
        finished.store(true, ordering: .releasing)
    }

    /// Nanoseconds from `earlier` to `later`, 0 if `earlier` is later (times taken in a different order).
    @inline(__always)
    static func since(_ earlier: UInt64, _ later: UInt64) -> UInt64 { later > earlier ? later - earlier : 0 }

    /// Deliveries sent but neither received nor written off.
    var outstanding: Int { talker.log.sent * sockets.listenerFDs.count - receivers.tally.delivered - pacing.forgiven }

    func beginDraining(now: UInt64) {
        pacing.sendEnd = now
        pacing.phase = .draining
    }

    /// The run is over: what it measured becomes `result`.
    func finish(now: UInt64) {
        let end = configuration.cpu.snapshot()
        let sendStart = pacing.sendStart
        let sendEnd = pacing.sendEnd
        result = Result(
            sending: SendTally(
                sent: talker.log.sent, sendErrors: talker.errors, keepAlivesSent: keepAlives.sent,
                floodStalls: pacing.floodStalls,
                sendSeconds: Double(sendEnd - sendStart) / 1e9,
                activeSeconds: Double(max(receivers.lastDelivery, sendEnd) - sendStart) / 1e9),
            receiving: receivers.tally, spread: receivers.spread, latency: LatencySummary(receivers.histogram),
            start: pacing.cpuAtStart, end: end)
        if configuration.windowStart != nil {
            result.windowLatency = LatencySummary(receivers.windowHistogram)
            result.windowPackets = receivers.windowHistogram.total
        }
        if !sockets.lateFDs.isEmpty {
            var late = lateReceivers.summary(heardAt: pacing.lateHeardRealtime, sent: talker.log.sent)
            late.keepAlivesSent = lateKeepAlives.sent
            result.late = late
        }
        pacing.phase = .done
    }
}
#endif
