#if os(Linux)
import Foundation
import Glibc
import RTP
import SRTP

/// What a listener's socket received: latency, counts, and a sample decrypted and compared.
extension LoadEngine {
    @inline(__always)
    /// `arrival`: when the packet reached the socket (CLOCK_REALTIME, like the send times); `seen`: when this
    /// thread read it (CLOCK_MONOTONIC, for the engine's own timing).
    func receive(listener: Int, packet: UnsafeMutableRawPointer, length: Int, arrival: UInt64, seen: UInt64) {
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
    func verify(listener: Int, packet: UnsafeMutableRawPointer, length: Int, index: Int) {
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
