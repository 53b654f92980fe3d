#if os(Linux)
import Foundation
import Glibc
import RTP
import SRTP

/// The listeners' RTCP keep-alives (empty RR + CNAME), each SRTCP-protected with its listener's key and sent from
/// its socket: a few at first (the relay may learn of a join a moment after `joined`), then every `interval`.
struct KeepAlives {
    let fds: [Int32]
    let ssrcs: [UInt32]
    /// Outbound SRTCP per listener; nil for plain RTCP.
    let sessions: [SRTPSession?]
    /// One packet being built (4 KiB).
    let scratch: UnsafeMutableRawPointer
    /// Nanoseconds between keep-alives after the first few.
    let interval: UInt64
    /// When the next keep-alives are due (CLOCK_MONOTONIC).
    var schedule: [UInt64] = []
    /// Keep-alives sent whole.
    var sent = 0

    init(fds: [Int32], ssrcs: [UInt32], sessions: [SRTPSession?], interval: Double) {
        self.fds = fds
        self.ssrcs = ssrcs
        self.sessions = sessions
        scratch = .allocate(byteCount: 4096, alignment: 16)
        self.interval = UInt64(interval * 1e9)
    }

    func deallocate() { scratch.deallocate() }

    /// The first keep-alives: at once, then 50, 200, 500, 1000 and 2000 ms after `now`.
    mutating func begin(at now: UInt64) {
        schedule = [0, 50, 200, 500, 1_000, 2_000].map { now + $0 * 1_000_000 }
    }

    /// Sends a round if one is due.
    mutating func sendIfDue(now: UInt64) {
        if let next = schedule.first, now >= next {
            sendRound()
            schedule.removeFirst()
            if schedule.isEmpty { schedule.append(now + interval) }
        }
    }

    /// An RTCP keep-alive from every listener's socket.
    mutating func sendRound() {
        for (index, fd) in fds.enumerated() {
            let out = UnsafeMutableRawBufferPointer(start: scratch, count: 4096)
            guard var length = try? RTCPWriter.writeKeepAlive(into: out, ssrc: ssrcs[index], cname: "b") else {
                continue
            }
            if let session = sessions[index] {
                guard let protected = try? session.protectRTCP(scratch, length: length, capacity: 4096) else {
                    continue
                }
                length = protected
            }
            if send(fd, scratch, length, Int32(MSG_DONTWAIT)) == length { sent += 1 }
        }
    }
}
#endif
