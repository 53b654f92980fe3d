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
/// Latency matching: the talker sends packet k with timestamp base + 960·k and notes its send time. The relay
/// maps timestamps by one offset per burst (the same for every listener) and marks the burst's first packet,
/// so a receiver computes k = (ts − ts_first) / 960 from the first marked packet anyone received.
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
    /// What the thread counts; copied to `result` when the run ends.
    var counts = Result()

    let listenerFDs: [Int32]
    let talkerFD: Int32
    let listenerPorts: [Int]
    let inbound: [SRTPSession?]
    let keepAliveOut: [SRTPSession?]
    let talkerOut: SRTPSession?
    let listenSSRCs: UnsafeMutablePointer<UInt32>
    let sendTimes: UnsafeMutablePointer<UInt64>

    init(_ configuration: Configuration) throws {
        self.configuration = configuration
        let secure = configuration.secure
        var fds: [Int32] = []
        var ports: [Int] = []
        do {
            for _ in configuration.listeners {
                let (fd, port) = try Self.openSocket(relayPort: configuration.relayPort, receiveBuffer: configuration.receiveBuffer,
                                                     timestamps: configuration.kernelTimestamps)
                fds.append(fd)
                ports.append(port)
            }
            talkerFD = try Self.openSocket(relayPort: configuration.relayPort, receiveBuffer: 0, timestamps: false).fd
        } catch {
            for fd in fds { close(fd) }
            throw error
        }
        listenerFDs = fds
        listenerPorts = ports
        if secure {
            inbound = try configuration.listeners.map { try SRTPSession(direction: .inbound, key: $0.key, ssrc: .specific($0.listenSSRC)) }
            keepAliveOut = try configuration.listeners.map { try SRTPSession(direction: .outbound, key: $0.key, ssrc: .specific($0.ssrc)) }
            talkerOut = try SRTPSession(direction: .outbound, key: configuration.talker.key, ssrc: .specific(configuration.talker.ssrc))
        } else {
            inbound = configuration.listeners.map { _ in nil }
            keepAliveOut = inbound
            talkerOut = nil
        }
        listenSSRCs = .allocate(capacity: max(1, configuration.listeners.count))
        for (index, listener) in configuration.listeners.enumerated() { listenSSRCs[index] = listener.listenSSRC }
        sendTimes = .allocate(capacity: max(1, configuration.maxPackets))
    }

    deinit {
        for fd in listenerFDs { close(fd) }
        close(talkerFD)
        listenSSRCs.deallocate()
        sendTimes.deallocate()
    }

    func start() {
        let thread = Thread { [self] in
            self.run()
            self.publish()
        }
        thread.name = "pttbench-load"
        thread.stackSize = 1 << 20
        thread.start()
    }

    // MARK: The engine thread's state (LoadEngine+Loop.swift runs it; +Sending and +Receiving handle packets)

    enum State { case waiting, sending, draining, idle, tail, done }

    var state = State.waiting
    var histogram = LatencyHistogram()
    var perListener: [Int] = []
    var lastSeq: [UInt16] = []
    var haveFirstTimestamp = false
    var firstTimestamp: UInt32 = 0
    var sent = 0
    var delivered = 0
    var forgiven = 0
    var lastDelivery: UInt64 = 0
    var lastSend: UInt64 = 0
    var sendStart: UInt64 = 0
    var sendEnd: UInt64 = 0
    var payloadBytes: [UInt8] = []
    var payloadOffsets: [Int] = []
    var payloadStore: UnsafeMutableRawPointer?
    var packetScratch = UnsafeMutableRawPointer.allocate(byteCount: 4096, alignment: 16)
    var sequence: UInt16 = 0
    var timestampBase: UInt32 = 0
    var published = false
    var tailStart: UInt64 = 0
    var tailSent = 0

    /// Makes `counts` the final `result` and sets `finished` (once).
    func publish() {
        guard !published else { return }
        published = true
        for index in 0..<perListener.count where perListener[index] == 0 { counts.listenersWithNothing += 1 }
        counts.minPerListener = perListener.min() ?? 0
        counts.maxPerListener = perListener.max() ?? 0
        result = counts
        finished.store(true, ordering: .releasing)
    }

    /// Nanoseconds from `earlier` to `later`, 0 if `earlier` is later (times taken in a different order).
    @inline(__always)
    static func since(_ earlier: UInt64, _ later: UInt64) -> UInt64 { later > earlier ? later - earlier : 0 }

    var outstanding: Int { sent * listenerFDs.count - delivered - forgiven }

    func beginDraining(now: UInt64) {
        sendEnd = now
        state = .draining
    }

    func finish(now: UInt64) {
        counts.end = CPUSnapshot.take(serverPID: configuration.serverPID, serverCore: configuration.serverCore,
                                      benchCore: configuration.benchCore)
        counts.sent = sent
        counts.delivered = delivered
        counts.sendSeconds = Double(sendEnd - sendStart) / 1e9
        counts.activeSeconds = Double(max(lastDelivery, sendEnd) - sendStart) / 1e9
        counts.p50 = histogram.percentileMilliseconds(0.50)
        counts.p90 = histogram.percentileMilliseconds(0.90)
        counts.p99 = histogram.percentileMilliseconds(0.99)
        counts.p999 = histogram.percentileMilliseconds(0.999)
        counts.maxLatency = histogram.total > 0 ? histogram.maxMilliseconds : nil
        counts.meanLatency = histogram.meanMilliseconds
        counts.latencyOverflow = histogram.overflow
        state = .done
    }
}
#endif
