#if os(Linux)
import Foundation
import Glibc
import RTP
import SRTP

/// What the listeners' sockets received: every packet's added latency in a histogram, the tallies, and a sample
/// decrypted and compared (`PacketVerifier`). Reads the RTP header in place; nothing is allocated per packet.
///
/// Latency matching: the talker sends packet k with timestamp base + 960·k. The relay maps timestamps by one offset
/// per burst (the same for every listener) and marks the burst's first packet, so k = (ts − ts_first) / 960 from
/// the first marked packet anyone received.
struct Receivers {
    /// The SSRC each listener's stream must carry, by listener index.
    let listenSSRCs: UnsafeMutablePointer<UInt32>
    /// Packets counted per listener, and the sequence number of each one's last.
    var perListener: [Int]
    var lastSeq: [UInt16]
    var haveFirstTimestamp = false
    var firstTimestamp: UInt32 = 0
    /// CLOCK_MONOTONIC when the last counted packet was read.
    var lastDelivery: UInt64 = 0
    var tally = ReceiveTally()
    var histogram = LatencyHistogram()
    /// The catch-up window: packets whose send time (CLOCK_REALTIME) falls in it are also recorded apart.
    var window: Range<UInt64> = 0..<0
    var windowHistogram = LatencyHistogram()
    let verifier: PacketVerifier

    init(listenSSRCs ssrcs: [UInt32], verifier: PacketVerifier) {
        listenSSRCs = .allocate(capacity: max(1, ssrcs.count))
        for (index, ssrc) in ssrcs.enumerated() { listenSSRCs[index] = ssrc }
        perListener = Array(repeating: 0, count: ssrcs.count)
        lastSeq = Array(repeating: 0, count: ssrcs.count)
        self.verifier = verifier
    }

    func deallocate() {
        listenSSRCs.deallocate()
        histogram.deallocate()
        windowHistogram.deallocate()
    }

    /// `arrival`: when the packet reached the socket (CLOCK_REALTIME, like the send times); `seen`: when this
    /// thread read it (CLOCK_MONOTONIC, for the engine's own timing). `counting`: the run is sending or draining
    /// (before it, packets are stray; after it, the tail's, counted only to move the flood window). `sendTimes` and
    /// `sent`: the talker's `SendLog`.
    @inline(__always)
    mutating func receive(
        listener: Int, packet: UnsafeMutableRawPointer, length: Int, arrival: UInt64, seen: UInt64,
        counting: Bool, sendTimes: UnsafeMutablePointer<UInt64>, sent: Int
    ) {
        guard length >= 12 else {
            tally.unmatched += 1
            return
        }
        let second = packet.load(fromByteOffset: 1, as: UInt8.self)
        if second >= 192 && second <= 223 {
            tally.rtcpReceived += 1
            return
        }
        guard counting else {
            tally.delivered += 1
            return
        }
        let ssrc = UInt32(bigEndian: packet.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
        guard ssrc == listenSSRCs[listener] else {
            tally.wrongSSRC += 1
            return
        }
        let timestamp = UInt32(bigEndian: packet.loadUnaligned(fromByteOffset: 4, as: UInt32.self))
        let marker = second & 0x80 != 0
        if !haveFirstTimestamp {
            guard marker else {
                tally.unmatched += 1
                return
            }
            haveFirstTimestamp = true
            firstTimestamp = timestamp
        } else if marker && timestamp != firstTimestamp {
            tally.burstRestarts += 1
        }
        guard
            let match = SentPacketMatch(
                timestamp: timestamp, firstTimestamp: firstTimestamp, limit: sent, sendTimes: sendTimes,
                arrival: arrival)
        else {
            tally.unmatched += 1
            return
        }
        let (index, sentAt) = (match.index, match.sentAt)
        histogram.record(arrival - sentAt)
        if window.contains(sentAt) { windowHistogram.record(arrival - sentAt) }
        tally.delivered += 1
        lastDelivery = seen
        let count = perListener[listener] &+ 1
        perListener[listener] = count
        let sequence = UInt16(bigEndian: packet.loadUnaligned(fromByteOffset: 2, as: UInt16.self))
        if count > 1 && sequence == lastSeq[listener] { tally.duplicates += 1 }
        lastSeq[listener] = sequence
        if count == 1 || tally.delivered % verifier.every == 0 {
            if verifier.verify(listener: listener, packet: packet, length: length, index: index) {
                tally.verified += 1
            } else {
                tally.verifyFailed += 1
            }
        }
    }

    /// How evenly the packets were spread over the listeners.
    var spread: ListenerSpread {
        ListenerSpread(
            withNothing: perListener.count(where: { $0 == 0 }), min: perListener.min() ?? 0, max: perListener.max() ?? 0
        )
    }
}
#endif
