#if os(Linux)
import Foundation
import Glibc

/// The engine thread: one epoll loop over the listeners' sockets and a timerfd, paced by the run's state.
extension LoadEngine {
    /// Runs until the run is over (or, with `lingerAfterRun`, until command 2); returns why it could not finish, if so.
    func run() -> String? {
        let epoll = LinuxSys.epollCreate1(0)
        let timer = LinuxSys.timerfdCreate(CLOCK_MONOTONIC, LinuxSys.timerNonBlocking)
        guard epoll >= 0, timer >= 0 else {
            return "epoll_create1/timerfd_create failed: \(String(cString: strerror(errno)))"
        }
        defer {
            close(epoll)
            close(timer)
        }
        let timerTag = UInt64.max
        guard LinuxSys.epollAdd(epoll, fd: timer, tag: timerTag) else { return "epoll_ctl(timerfd) failed" }
        // Tags: live listeners 0..<n, late listeners n..<n+m.
        let liveCount = sockets.listenerFDs.count
        for (index, fd) in (sockets.listenerFDs + sockets.lateFDs).enumerated()
        where !LinuxSys.epollAdd(epoll, fd: fd, tag: UInt64(index)) {
            return "epoll_ctl(listener \(index)) failed: \(String(cString: strerror(errno)))"
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
        defer {
            buffers.deallocate()
            iovecs.deallocate()
            messages.deallocate()
            controls.deallocate()
        }
        let kernelTimestamps = configuration.sockets.kernelTimestamps
        for index in 0..<batch {
            iovecs[index] = iovec(iov_base: buffers + index * slot, iov_len: slot)
            messages[index] = MMsgHdr()
            messages[index].header.msg_iov = iovecs + index
            messages[index].header.msg_iovlen = 1
        }

        let startedAt = LinuxSys.now()
        keepAlives.begin(at: startedAt)
        // Hard bound on the thread's life whatever the caller does.
        let traffic = configuration.traffic
        let lifetimeLimit = startedAt + UInt64((traffic.seconds + 3_600) * 1e9)
        let period: UInt64
        let totalPackets: Int
        switch traffic.mode {
        case .rate(let rate):
            period = UInt64(1e9 / rate)
            totalPackets = min(traffic.maxPackets, Int((traffic.seconds * rate).rounded()))
        case .flood:
            period = 0
            totalPackets = traffic.maxPackets
        }
        let sendDuration = UInt64(traffic.seconds * 1e9)
        var floodWindow = 0
        if case .flood(let window) = traffic.mode { floodWindow = window }

        loop: while true {
            var now = LinuxSys.now()
            if now >= lifetimeLimit { return "the load engine hit its time limit" }
            if command.load(ordering: .acquiring) == 2 { return "aborted" }
            keepAlives.sendIfDue(now: now)
            lateKeepAlives.sendIfDue(now: now)

            var timeoutMs: Int32 = 10
            switch pacing.phase {
            case .waiting:
                if command.load(ordering: .acquiring) == 1 {
                    receivers.tally.strayBeforeStart = receivers.tally.delivered
                    receivers.tally.delivered = 0
                    pacing.cpuAtStart = configuration.cpu.snapshot()
                    now = LinuxSys.now()
                    pacing.sendStart = now
                    if let start = configuration.windowStart {
                        let from = LinuxSys.realtime() + UInt64(start * 1e9)
                        receivers.window = from..<(from + UInt64(configuration.windowSeconds * 1e9))
                    }
                    receivers.lastDelivery = now
                    pacing.phase = .sending
                    continue loop
                }
            case .sending:
                hearLateListenersIfDue(now: now)
                switch traffic.mode {
                case .rate:
                    var burst = 0
                    while talker.log.sent < totalPackets, burst < 64,
                        pacing.sendStart + UInt64(talker.log.sent) * period <= now
                    {
                        talker.sendPacket()
                        burst += 1
                    }
                    if talker.log.sent >= totalPackets {
                        beginDraining(now: LinuxSys.now())
                    } else {
                        armTimer(timer, at: pacing.sendStart + UInt64(talker.log.sent) * period)
                        timeoutMs = 100
                    }
                case .flood:
                    if Self.since(pacing.sendStart, now) >= sendDuration || talker.log.sent >= totalPackets {
                        beginDraining(now: now)
                        continue loop
                    }
                    var burst = 0
                    while burst < 64, talker.log.sent < totalPackets, outstanding < floodWindow {
                        talker.sendPacket()
                        burst += 1
                    }
                    if outstanding >= floodWindow {
                        // Window full. Deliveries that never come (loss) would close it for good: after 20 ms
                        // without any delivery, write the outstanding ones off and go on.
                        if Self.since(receivers.lastDelivery, now) > 20_000_000,
                            Self.since(talker.log.lastSend, now) > 20_000_000
                        {
                            pacing.forgiven += outstanding
                            pacing.floodStalls += 1
                        }
                        timeoutMs = 1
                    } else {
                        timeoutMs = 0
                    }
                }
            case .draining:
                let expected = talker.log.sent * sockets.listenerFDs.count
                let lastDelivery = max(receivers.lastDelivery, lateReceivers.lastDelivery)
                let quiet = Self.since(max(lastDelivery, pacing.sendEnd), now)
                if receivers.tally.delivered >= expected && lateReceivers.complete(sent: talker.log.sent)
                    || quiet > 300_000_000
                    || Self.since(pacing.sendEnd, now) > 3_000_000_000
                {
                    finish(now: now)
                    guard configuration.lingerAfterRun else { break loop }
                    publish(failure: nil)
                    pacing.phase = .idle
                    continue loop
                }
            case .idle:
                // The run is over; receive and discard whatever still comes, until told to send again or to end.
                if command.load(ordering: .acquiring) == 3 {
                    pacing.tailStart = now
                    pacing.tailSent = 0
                    pacing.phase = .tail
                    continue loop
                }
            case .tail:
                // Sending again after the run (counted nowhere), so the server is stopped while under load.
                switch traffic.mode {
                case .rate:
                    var burst = 0
                    while burst < 64, pacing.tailStart + UInt64(pacing.tailSent) * period <= now {
                        talker.sendPacket()
                        pacing.tailSent += 1
                        burst += 1
                    }
                    tailPacketsSent.store(pacing.tailSent, ordering: .relaxed)
                    armTimer(timer, at: pacing.tailStart + UInt64(pacing.tailSent) * period)
                    timeoutMs = 100
                case .flood:
                    var burst = 0
                    while burst < 64, outstanding < floodWindow {
                        talker.sendPacket()
                        burst += 1
                    }
                    if outstanding >= floodWindow, Self.since(talker.log.lastSend, now) > 20_000_000 {
                        pacing.forgiven += outstanding
                    }
                    tailPacketsSent.store(talker.log.sent - result.sending.sent, ordering: .relaxed)
                    timeoutMs = outstanding >= floodWindow ? 1 : 0
                }
            case .done:
                return nil
            }

            let ready = LinuxSys.epollWait(epoll, events, Int32(maxEvents), timeoutMs)
            if ready < 0 {
                if errno == EINTR { continue }
                return "epoll_wait: \(String(cString: strerror(errno)))"
            }
            let counting = pacing.counting
            for index in 0..<Int(ready) {
                let tag = events.loadUnaligned(
                    fromByteOffset: index * LinuxSys.epollEventSize + LinuxSys.epollDataOffset, as: UInt64.self)
                if tag == timerTag {
                    var expirations: UInt64 = 0
                    _ = read(timer, &expirations, 8)
                    continue
                }
                let listener = Int(tag)
                let late = listener >= liveCount
                let fd = late ? sockets.lateFDs[listener - liveCount] : sockets.listenerFDs[listener]
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
                        if kernelTimestamps,
                            let stamp = LinuxSys.kernelTimestamp(
                                control: controls + message * controlSize,
                                length: Int(messages[message].header.msg_controllen))
                        {
                            arrival = stamp
                        } else if kernelTimestamps && !late {
                            receivers.tally.missingTimestamps += 1
                        }
                        if late {
                            lateReceivers.receive(
                                listener: listener - liveCount, packet: buffers + message * slot,
                                length: Int(messages[message].length), arrival: arrival, seen: seen,
                                counting: counting,
                                firstTimestamp: receivers.haveFirstTimestamp ? receivers.firstTimestamp : nil,
                                sendTimes: talker.log.times, sent: talker.log.sent)
                            continue
                        }
                        receivers.receive(
                            listener: listener, packet: buffers + message * slot, length: Int(messages[message].length),
                            arrival: arrival, seen: seen, counting: counting,
                            sendTimes: talker.log.times, sent: talker.log.sent)
                    }
                    if count < Int32(batch) { break }
                }
            }
        }
        return nil
    }

    /// `lateAfter` seconds into the sending: the late listeners' first keep-alives, all at once (then as usual).
    func hearLateListenersIfDue(now: UInt64) {
        guard !sockets.lateFDs.isEmpty, pacing.lateHeardRealtime == 0,
            Self.since(pacing.sendStart, now) >= UInt64(configuration.lateAfter * 1e9)
        else { return }
        lateReceivers.tally.sentBeforeHeard = talker.log.sent
        pacing.lateHeardRealtime = LinuxSys.realtime()
        lateKeepAlives.begin(at: now)
        lateKeepAlives.sendIfDue(now: now)
    }

    func armTimer(_ timer: Int32, at deadline: UInt64) {
        var spec = itimerspec()
        spec.it_value.tv_sec = Int(deadline / 1_000_000_000)
        spec.it_value.tv_nsec = Int(deadline % 1_000_000_000)
        _ = LinuxSys.timerfdSettime(timer, LinuxSys.timerAbsolute, &spec, nil)
    }
}
#endif
