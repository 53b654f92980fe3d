#if os(Linux)
import Foundation
import Glibc
import RTP
import SRTP

/// The talker: RTP packets with timestamp base + 960·k, SRTP-protected (with a key), sent from its own socket;
/// the send time of each of the run's packets is noted for the receivers' latencies.
struct Talker {
    let fd: Int32
    /// Outbound SRTP with the talker's key; nil for plain RTP.
    let session: SRTPSession?
    let ssrc: UInt32
    let payloads: PayloadStore
    /// One packet being built (4 KiB).
    let scratch: UnsafeMutableRawPointer
    let timestampBase: UInt32
    var sequence: UInt16
    var log: SendLog
    /// Packets that could not be built, protected or sent whole.
    var errors = 0

    /// Random first sequence number and timestamp, as a real sender's.
    init(fd: Int32, session: SRTPSession?, ssrc: UInt32, payloads: PayloadStore, maxPackets: Int) {
        self.fd = fd
        self.session = session
        self.ssrc = ssrc
        self.payloads = payloads
        scratch = .allocate(byteCount: 4096, alignment: 16)
        var generator = SystemRandomNumberGenerator()
        sequence = UInt16.random(in: 0...UInt16.max, using: &generator)
        timestampBase = UInt32.random(in: 0...UInt32.max, using: &generator)
        log = SendLog(maxPackets: maxPackets)
    }

    func deallocate() {
        scratch.deallocate()
        log.deallocate()
    }

    /// The talker's packet `log.sent`: RTP with timestamp base + 960·k, SRTP-protected, sent; its send time noted.
    mutating func sendPacket() {
        let index = log.sent
        let payload = payloads.payload(forPacket: index)
        let out = UnsafeMutableRawBufferPointer(start: scratch, count: 4096)
        guard
            var length = try? RTPHeader.writePacket(
                into: out, marker: index == 0, payloadType: 111, sequenceNumber: sequence,
                timestamp: timestampBase &+ UInt32(truncatingIfNeeded: index) &* 960, ssrc: ssrc, payload: payload)
        else {
            errors += 1
            log.sent += 1
            return
        }
        if let session {
            guard let protected = try? session.protect(scratch, length: length, capacity: 4096) else {
                errors += 1
                log.sent += 1
                return
            }
            length = protected
        }
        sequence &+= 1
        if index < log.capacity { log.times[index] = LinuxSys.realtime() }
        log.sent += 1
        log.lastSend = LinuxSys.now()
        if send(fd, scratch, length, Int32(MSG_DONTWAIT)) != length { errors += 1 }
    }
}

/// When the talker sent each of the run's packets (CLOCK_REALTIME, like the receive timestamps), and how many it sent.
struct SendLog {
    /// Send time of packet k, for k < `capacity`.
    let times: UnsafeMutablePointer<UInt64>
    /// The run's packet limit (`Configuration.Traffic.maxPackets`).
    let capacity: Int
    /// Packets sent so far: the run's, then the tail's.
    var sent = 0
    /// CLOCK_MONOTONIC of the last send.
    var lastSend: UInt64 = 0

    init(maxPackets: Int) {
        times = .allocate(capacity: max(1, maxPackets))
        capacity = maxPackets
    }

    func deallocate() { times.deallocate() }
}
#endif
