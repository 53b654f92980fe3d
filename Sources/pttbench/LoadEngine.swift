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
    private var counts = Result()

    private let listenerFDs: [Int32]
    private let talkerFD: Int32
    let listenerPorts: [Int]
    private let inbound: [SRTPSession?]
    private let keepAliveOut: [SRTPSession?]
    private let talkerOut: SRTPSession?
    private let listenSSRCs: UnsafeMutablePointer<UInt32>
    private let sendTimes: UnsafeMutablePointer<UInt64>

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

    // MARK: The engine thread

    private enum State { case waiting, sending, draining, idle, tail, done }

    private var state = State.waiting
    private var histogram = LatencyHistogram()
    private var perListener: [Int] = []
    private var lastSeq: [UInt16] = []
    private var haveFirstTimestamp = false
    private var firstTimestamp: UInt32 = 0
    private var sent = 0
    private var delivered = 0
    private var forgiven = 0
    private var lastDelivery: UInt64 = 0
    private var lastSend: UInt64 = 0
    private var sendStart: UInt64 = 0
    private var sendEnd: UInt64 = 0
    private var payloadBytes: [UInt8] = []
    private var payloadOffsets: [Int] = []
    private var payloadStore: UnsafeMutableRawPointer?
    private var packetScratch = UnsafeMutableRawPointer.allocate(byteCount: 4096, alignment: 16)
    private var sequence: UInt16 = 0
    private var timestampBase: UInt32 = 0
    private var published = false
    private var tailStart: UInt64 = 0
    private var tailSent = 0

    private func run() {
        let listeners = listenerFDs.count
        perListener = Array(repeating: 0, count: listeners)
        lastSeq = Array(repeating: 0, count: listeners)
        defer {
            histogram.deallocate()
            packetScratch.deallocate()
            payloadStore?.deallocate()
        }
        preparePayloads()
        var generator = SystemRandomNumberGenerator()
        sequence = UInt16.random(in: 0...UInt16.max, using: &generator)
        timestampBase = UInt32.random(in: 0...UInt32.max, using: &generator)

        let epoll = LinuxSys.epollCreate1(0)
        let timer = LinuxSys.timerfdCreate(CLOCK_MONOTONIC, LinuxSys.timerNonBlocking)
        guard epoll >= 0, timer >= 0 else {
            counts.failure = "epoll_create1/timerfd_create failed: \(String(cString: strerror(errno)))"
            return
        }
        defer { close(epoll); close(timer) }
        let timerTag = UInt64.max
        guard LinuxSys.epollAdd(epoll, fd: timer, tag: timerTag) else { counts.failure = "epoll_ctl(timerfd) failed"; return }
        for (index, fd) in listenerFDs.enumerated() where !LinuxSys.epollAdd(epoll, fd: fd, tag: UInt64(index)) {
            counts.failure = "epoll_ctl(listener \(index)) failed: \(String(cString: strerror(errno)))"
            return
        }

        let maxEvents = 512
        let events = UnsafeMutableRawPointer.allocate(byteCount: maxEvents * LinuxSys.epollEventSize, alignment: 8)
        defer { events.deallocate() }
        let batch = 32
        let slot = 2048
        let buffers = UnsafeMutableRawPointer.allocate(byteCount: batch * slot, alignment: 16)
        let iovecs = UnsafeMutablePointer<iovec>.allocate(capacity: batch)
        let messages = UnsafeMutablePointer<MMsgHdr>.allocate(capacity: batch)
        let controlSize = 64
        let controls = UnsafeMutableRawPointer.allocate(byteCount: batch * controlSize, alignment: 16)
        defer { buffers.deallocate(); iovecs.deallocate(); messages.deallocate(); controls.deallocate() }
        let kernelTimestamps = configuration.kernelTimestamps
        for index in 0..<batch {
            iovecs[index] = iovec(iov_base: buffers + index * slot, iov_len: slot)
            messages[index] = MMsgHdr()
            messages[index].header.msg_iov = iovecs + index
            messages[index].header.msg_iovlen = 1
        }

        let startedAt = LinuxSys.now()
        // Keep-alives: a few at first (the relay may learn of a join a moment after `joined`), then regularly.
        var keepAliveSchedule: [UInt64] = [0, 50, 200, 500, 1_000, 2_000].map { startedAt + $0 * 1_000_000 }
        let keepAliveInterval = UInt64(configuration.keepAliveInterval * 1e9)
        // Hard bound on the thread's life whatever the caller does.
        let lifetimeLimit = startedAt + UInt64((configuration.seconds + 3_600) * 1e9)
        let period: UInt64
        let totalPackets: Int
        switch configuration.mode {
        case .rate(let rate):
            period = UInt64(1e9 / rate)
            totalPackets = min(configuration.maxPackets, Int((configuration.seconds * rate).rounded()))
        case .flood:
            period = 0
            totalPackets = configuration.maxPackets
        }
        let sendDuration = UInt64(configuration.seconds * 1e9)
        var floodWindow = 0
        if case .flood(let window) = configuration.mode { floodWindow = window }

        loop: while true {
            var now = LinuxSys.now()
            if now >= lifetimeLimit { counts.failure = "the load engine hit its time limit"; break }
            if command.load(ordering: .acquiring) == 2 { counts.failure = counts.failure ?? "aborted"; break }
            if let next = keepAliveSchedule.first, now >= next {
                sendKeepAlives()
                keepAliveSchedule.removeFirst()
                if keepAliveSchedule.isEmpty { keepAliveSchedule.append(now + keepAliveInterval) }
            }

            var timeoutMs: Int32 = 10
            switch state {
            case .waiting:
                if command.load(ordering: .acquiring) == 1 {
                    counts.strayBeforeStart = delivered
                    delivered = 0
                    counts.start = CPUSnapshot.take(serverPID: configuration.serverPID, serverCore: configuration.serverCore,
                                                    benchCore: configuration.benchCore)
                    now = LinuxSys.now()
                    sendStart = now
                    lastDelivery = now
                    state = .sending
                    continue loop
                }
            case .sending:
                switch configuration.mode {
                case .rate:
                    var burst = 0
                    while sent < totalPackets, burst < 64, sendStart + UInt64(sent) * period <= now {
                        sendPacket()
                        burst += 1
                    }
                    if sent >= totalPackets {
                        beginDraining(now: LinuxSys.now())
                    } else {
                        armTimer(timer, at: sendStart + UInt64(sent) * period)
                        timeoutMs = 100
                    }
                case .flood:
                    if Self.since(sendStart, now) >= sendDuration || sent >= totalPackets {
                        beginDraining(now: now)
                        continue loop
                    }
                    var burst = 0
                    while burst < 64, sent < totalPackets, outstanding < floodWindow {
                        sendPacket()
                        burst += 1
                    }
                    if outstanding >= floodWindow {
                        // Window full. Deliveries that never come (loss) would close it for good: after 20 ms
                        // without any delivery, write the outstanding ones off and go on.
                        if Self.since(lastDelivery, now) > 20_000_000, Self.since(lastSend, now) > 20_000_000 {
                            forgiven += outstanding
                            counts.floodStalls += 1
                        }
                        timeoutMs = 1
                    } else {
                        timeoutMs = 0
                    }
                }
            case .draining:
                let expected = sent * listenerFDs.count
                let quiet = Self.since(max(lastDelivery, sendEnd), now)
                if delivered >= expected || quiet > 300_000_000 || Self.since(sendEnd, now) > 3_000_000_000 {
                    finish(now: now)
                    guard configuration.lingerAfterRun else { break loop }
                    publish()
                    state = .idle
                    continue loop
                }
            case .idle:
                // The run is over; receive and discard whatever still comes, until told to send again or to end.
                if command.load(ordering: .acquiring) == 3 {
                    tailStart = now
                    tailSent = 0
                    state = .tail
                    continue loop
                }
            case .tail:
                // Sending again after the run (counted nowhere), so the server is stopped while under load.
                switch configuration.mode {
                case .rate:
                    var burst = 0
                    while burst < 64, tailStart + UInt64(tailSent) * period <= now {
                        sendPacket()
                        tailSent += 1
                        burst += 1
                    }
                    tailPacketsSent.store(tailSent, ordering: .relaxed)
                    armTimer(timer, at: tailStart + UInt64(tailSent) * period)
                    timeoutMs = 100
                case .flood:
                    var burst = 0
                    while burst < 64, outstanding < floodWindow {
                        sendPacket()
                        burst += 1
                    }
                    if outstanding >= floodWindow, Self.since(lastSend, now) > 20_000_000 { forgiven += outstanding }
                    tailPacketsSent.store(sent - counts.sent, ordering: .relaxed)
                    timeoutMs = outstanding >= floodWindow ? 1 : 0
                }
            case .done:
                break loop
            }

            let ready = LinuxSys.epollWait(epoll, events, Int32(maxEvents), timeoutMs)
            if ready < 0 {
                if errno == EINTR { continue }
                counts.failure = "epoll_wait: \(String(cString: strerror(errno)))"
                break
            }
            for index in 0..<Int(ready) {
                let tag = events.loadUnaligned(fromByteOffset: index * LinuxSys.epollEventSize + LinuxSys.epollDataOffset, as: UInt64.self)
                if tag == timerTag {
                    var expirations: UInt64 = 0
                    _ = read(timer, &expirations, 8)
                    continue
                }
                let listener = Int(tag)
                let fd = listenerFDs[listener]
                // Bounded: at most 8 × 32 datagrams per socket per wake-up (epoll is level-triggered).
                for _ in 0..<8 {
                    if kernelTimestamps {
                        for index in 0..<batch {
                            messages[index].header.msg_control = controls + index * controlSize
                            messages[index].header.msg_controllen = controlSize
                        }
                    }
                    let count = LinuxSys.recvmmsg(fd, messages, UInt32(batch), Int32(MSG_DONTWAIT), nil)
                    if count <= 0 { break }
                    let reached = LinuxSys.realtime()
                    let seen = LinuxSys.now()
                    for message in 0..<Int(count) {
                        var arrival = reached
                        if kernelTimestamps, let stamp = LinuxSys.kernelTimestamp(
                            control: controls + message * controlSize, length: Int(messages[message].header.msg_controllen)) {
                            arrival = stamp
                        } else if kernelTimestamps {
                            counts.missingTimestamps += 1
                        }
                        receive(listener: listener, packet: buffers + message * slot, length: Int(messages[message].length),
                                arrival: arrival, seen: seen)
                    }
                    if count < Int32(batch) { break }
                }
            }
        }
    }

    /// Makes `counts` the final `result` and sets `finished` (once).
    private func publish() {
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
    private static func since(_ earlier: UInt64, _ later: UInt64) -> UInt64 { later > earlier ? later - earlier : 0 }

    private var outstanding: Int { sent * listenerFDs.count - delivered - forgiven }

    private func beginDraining(now: UInt64) {
        sendEnd = now
        state = .draining
    }

    private func finish(now: UInt64) {
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

    private func armTimer(_ timer: Int32, at deadline: UInt64) {
        var spec = itimerspec()
        spec.it_value.tv_sec = Int(deadline / 1_000_000_000)
        spec.it_value.tv_nsec = Int(deadline % 1_000_000_000)
        _ = LinuxSys.timerfdSettime(timer, LinuxSys.timerAbsolute, &spec, nil)
    }

    private func preparePayloads() {
        var offsets: [Int] = [0]
        for payload in configuration.payloads { offsets.append(offsets.last! + payload.count) }
        let store = UnsafeMutableRawPointer.allocate(byteCount: max(1, offsets.last!), alignment: 16)
        for (index, payload) in configuration.payloads.enumerated() {
            payload.withUnsafeBytes { (store + offsets[index]).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        }
        payloadStore = store
        payloadOffsets = offsets
    }

    /// The talker's packet `sent`: RTP with timestamp base + 960·k, SRTP-protected, sent; its send time noted.
    private func sendPacket() {
        let index = sent
        let payloadIndex = index % configuration.payloads.count
        let payload = UnsafeRawBufferPointer(start: payloadStore! + payloadOffsets[payloadIndex],
                                             count: payloadOffsets[payloadIndex + 1] - payloadOffsets[payloadIndex])
        let out = UnsafeMutableRawBufferPointer(start: packetScratch, count: 4096)
        guard var length = try? RTPHeader.writePacket(
            into: out, marker: index == 0, payloadType: 111, sequenceNumber: sequence,
            timestamp: timestampBase &+ UInt32(truncatingIfNeeded: index) &* 960, ssrc: configuration.talker.ssrc, payload: payload)
        else { counts.sendErrors += 1; sent += 1; return }
        if let talkerOut {
            guard let protected = try? talkerOut.protect(packetScratch, length: length, capacity: 4096) else {
                counts.sendErrors += 1; sent += 1; return
            }
            length = protected
        }
        sequence &+= 1
        if index < configuration.maxPackets { sendTimes[index] = LinuxSys.realtime() }
        sent += 1
        lastSend = LinuxSys.now()
        if send(talkerFD, packetScratch, length, Int32(MSG_DONTWAIT)) != length { counts.sendErrors += 1 }
    }

    /// An RTCP keep-alive (empty RR + CNAME) from every listener's socket, SRTCP-protected with its key.
    private func sendKeepAlives() {
        for (index, fd) in listenerFDs.enumerated() {
            let out = UnsafeMutableRawBufferPointer(start: packetScratch, count: 4096)
            guard var length = try? RTCPWriter.writeKeepAlive(into: out, ssrc: configuration.listeners[index].ssrc, cname: "b") else { continue }
            if let session = keepAliveOut[index] {
                guard let protected = try? session.protectRTCP(packetScratch, length: length, capacity: 4096) else { continue }
                length = protected
            }
            if send(fd, packetScratch, length, Int32(MSG_DONTWAIT)) == length { counts.keepAlivesSent += 1 }
        }
    }

    @inline(__always)
    /// `arrival`: when the packet reached the socket (CLOCK_REALTIME, like the send times); `seen`: when this
    /// thread read it (CLOCK_MONOTONIC, for the engine's own timing).
    private func receive(listener: Int, packet: UnsafeMutableRawPointer, length: Int, arrival: UInt64, seen: UInt64) {
        guard length >= 12 else { counts.unmatched += 1; return }
        let second = packet.load(fromByteOffset: 1, as: UInt8.self)
        if second >= 192 && second <= 223 { counts.rtcpReceived += 1; return }
        // Before the run: stray, counted at start; after it: the tail, counted only to move the flood window.
        guard state == .sending || state == .draining else { delivered += 1; return }
        let ssrc = UInt32(bigEndian: packet.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
        guard ssrc == listenSSRCs[listener] else { counts.wrongSSRC += 1; return }
        let timestamp = UInt32(bigEndian: packet.loadUnaligned(fromByteOffset: 4, as: UInt32.self))
        let marker = second & 0x80 != 0
        if !haveFirstTimestamp {
            guard marker else { counts.unmatched += 1; return }
            haveFirstTimestamp = true
            firstTimestamp = timestamp
        } else if marker && timestamp != firstTimestamp {
            counts.burstRestarts += 1
        }
        let delta = timestamp &- firstTimestamp
        let index = Int(delta / 960)
        guard delta % 960 == 0, index < sent else { counts.unmatched += 1; return }
        let sentAt = sendTimes[index]
        guard arrival >= sentAt else { counts.unmatched += 1; return }
        histogram.record(arrival - sentAt)
        delivered += 1
        lastDelivery = seen
        let count = perListener[listener] &+ 1
        perListener[listener] = count
        let sequence = UInt16(bigEndian: packet.loadUnaligned(fromByteOffset: 2, as: UInt16.self))
        if count > 1 && sequence == lastSeq[listener] { counts.duplicates += 1 }
        lastSeq[listener] = sequence
        if count == 1 || delivered % configuration.verifyEvery == 0 {
            verify(listener: listener, packet: packet, length: length, index: index)
        }
    }

    /// Decrypts (SRTP) and checks a received packet: listener SSRC, talker in the CSRC list, the exact payload sent.
    private func verify(listener: Int, packet: UnsafeMutableRawPointer, length: Int, index: Int) {
        var clear = length
        if let session = inbound[listener] {
            guard let unprotected = try? session.unprotect(packet, length: length) else { counts.verifyFailed += 1; return }
            clear = unprotected
        }
        guard let header = try? RTPHeader.parse(UnsafeRawBufferPointer(start: packet, count: clear)),
              header.csrcCount == 1,
              header.csrc(at: 0, in: UnsafeRawBufferPointer(start: packet, count: clear)) == configuration.talker.ssrc
        else { counts.verifyFailed += 1; return }
        let range = header.payloadRange(packetLength: clear)
        let payloadIndex = index % configuration.payloads.count
        let expectedLength = payloadOffsets[payloadIndex + 1] - payloadOffsets[payloadIndex]
        guard range.count == expectedLength,
              memcmp(packet + range.lowerBound, payloadStore! + payloadOffsets[payloadIndex], expectedLength) == 0
        else { counts.verifyFailed += 1; return }
        counts.verified += 1
    }
}

#endif
