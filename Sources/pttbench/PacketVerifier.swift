#if os(Linux)
import Foundation
import Glibc
import RTP
import SRTP

/// Checks a sample of delivered packets: decrypts (SRTP) with the listener's key, then the listener SSRC's stream
/// must name the talker in its CSRC list and carry exactly the payload sent.
struct PacketVerifier {
    /// Inbound SRTP per listener; nil for plain RTP.
    let sessions: [SRTPSession?]
    let talkerSSRC: UInt32
    let payloads: PayloadStore
    /// Every n-th delivered packet is checked (and each listener's first).
    let every: Int

    /// Whether the packet (the talker's packet `index`, received by `listener`) is what was sent. Decrypts in place.
    func verify(listener: Int, packet: UnsafeMutableRawPointer, length: Int, index: Int) -> Bool {
        var clear = length
        if let session = sessions[listener] {
            guard let unprotected = try? session.unprotect(packet, length: length) else { return false }
            clear = unprotected
        }
        guard let header = try? RTPHeader.parse(UnsafeRawBufferPointer(start: packet, count: clear)),
            header.csrcCount == 1,
            header.csrc(at: 0, in: UnsafeRawBufferPointer(start: packet, count: clear)) == talkerSSRC
        else { return false }
        let range = header.payloadRange(packetLength: clear)
        let expected = payloads.payload(forPacket: index)
        return range.count == expected.count
            && memcmp(packet + range.lowerBound, expected.baseAddress!, expected.count) == 0
    }
}
#endif
