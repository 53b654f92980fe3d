import Media

/// SRTP and SRTCP with a fixed key. The first byte picks what the rest is:
/// 0: an SRTP packet to unprotect, 1: an SRTCP packet to unprotect,
/// 2: an RTP packet to protect, unprotect (must give it back) and, with one bit flipped, unprotect
///    again (must fail), 3: the same for RTCP.
/// Modes 0 and 1 share one inbound session: only a packet that authenticates changes its state, and
/// random bytes never do. Modes 2 and 3 make fresh sessions (so replay state never carries from one
/// input to the next), which is slow: libsrtp2 with OpenSSL 3 takes about 7 ms per `srtp_create`.
enum SRTPFuzz {
    static let key = try! SRTPKey(bytes: (0..<30).map { UInt8($0 &* 7 &+ 1) })
    static let shared = try! SRTPSession(direction: .inbound, key: key, ssrc: .any)

    static func run(_ input: UnsafeRawBufferPointer) {
        guard let mode = input.first else { return }
        let packet = [UInt8](input.dropFirst())
        switch mode & 3 {
        case 0: _ = try? shared.unprotect(packet)
        case 1: _ = try? shared.unprotectRTCP(packet)
        case 2: roundTrip(packet, rtcp: false)
        default: roundTrip(packet, rtcp: true)
        }
    }

    private static func inbound() throws(SRTPError) -> SRTPSession {
        try SRTPSession(direction: .inbound, key: key, ssrc: .any)
    }

    private static func roundTrip(_ packet: [UInt8], rtcp: Bool) {
        guard let sender = try? SRTPSession(direction: .outbound, key: key, ssrc: .any),
              let protected = try? (rtcp ? sender.protectRTCP(packet) : sender.protect(packet)) else { return }
        precondition(protected.count == packet.count + (rtcp ? SRTPSession.rtcpOverhead : SRTPSession.rtpOverhead),
                     "protect added an unexpected number of bytes")
        do {
            let receiver = try inbound()
            let clear = try rtcp ? receiver.unprotectRTCP(protected) : receiver.unprotect(protected)
            precondition(clear == packet, "unprotect did not give back what protect was given")
        } catch {
            preconditionFailure("a packet this session protected did not unprotect: \(error)")
        }
        // Flip one bit chosen by the packet itself: the tag covers every byte, so this must fail.
        var forged = protected
        let bit = packet.reduce(0) { $0 &* 31 &+ Int($1) } & 0x7FFF_FFFF
        forged[(bit / 8) % forged.count] ^= UInt8(1 << (bit % 8))
        if let receiver = try? inbound(),
           (try? rtcp ? receiver.unprotectRTCP(forged) : receiver.unprotect(forged)) != nil {
            preconditionFailure("a forged packet was accepted")
        }
    }
}
