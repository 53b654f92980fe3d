#if os(Linux)
import Foundation
import Glibc

/// The engine thread: one epoll loop over the listeners' sockets and a timerfd, paced by the run's state.
extension LoadEngine {
    func run() {
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


    func armTimer(_ timer: Int32, at deadline: UInt64) {
        var spec = itimerspec()
        spec.it_value.tv_sec = Int(deadline / 1_000_000_000)
        spec.it_value.tv_nsec = Int(deadline % 1_000_000_000)
        _ = LinuxSys.timerfdSettime(timer, LinuxSys.timerAbsolute, &spec, nil)
    }
}
#endif
