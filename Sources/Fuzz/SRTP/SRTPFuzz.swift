import SRTP

/// SRTP and SRTCP with a fixed key per profile. The first byte picks what the rest is: bit 2 the
/// profile (0: AES_CM_128_HMAC_SHA1_80, 1: AEAD_AES_128_GCM), bits 0–1 the operation:
/// 0: an SRTP packet to unprotect, 1: an SRTCP packet to unprotect,
/// 2: an RTP packet to protect, unprotect (must give it back) and, with one bit flipped, unprotect
///    again (must fail), 3: the same for RTCP.
/// Modes 0 and 1 share one inbound session per profile: only a packet that authenticates changes its
/// state, and random bytes never do. Modes 2 and 3 make fresh sessions (so replay state never
/// carries from one input to the next); that costs microseconds.
enum SRTPFuzz {
    static let keys: [SRTPProfile: SRTPKey] = Dictionary(
        uniqueKeysWithValues: SRTPProfile.allCases.map { profile in
            (profile, try! SRTPKey(bytes: (0..<profile.keyLength).map { UInt8($0 &* 7 &+ 1) }))
        })
    static let shared: [SRTPProfile: SRTPSession] = keys.mapValues { key in
        try! SRTPSession(direction: .inbound, key: key, ssrc: .any, profile: key.profile)
    }

    static func run(_ input: UnsafeRawBufferPointer) {
        guard let mode = input.first else { return }
        let profile: SRTPProfile = mode & 4 == 0 ? .aesCM128HMACSHA1_80 : .aeadAES128GCM
        let packet = [UInt8](input.dropFirst())
        switch mode & 3 {
        case 0: _ = try? shared[profile]!.unprotect(packet)
        case 1: _ = try? shared[profile]!.unprotectRTCP(packet)
        case 2: roundTrip(packet, rtcp: false, profile: profile)
        default: roundTrip(packet, rtcp: true, profile: profile)
        }
    }

    private static func session(
        _ direction: SRTPSession.Direction, _ profile: SRTPProfile
    ) throws(SRTPError) -> SRTPSession {
        try SRTPSession(direction: direction, key: keys[profile]!, ssrc: .any, profile: profile)
    }

    private static func roundTrip(_ packet: [UInt8], rtcp: Bool, profile: SRTPProfile) {
        guard let sender = try? session(.outbound, profile),
            let protected = try? (rtcp ? sender.protectRTCP(packet) : sender.protect(packet))
        else { return }
        precondition(
            protected.count == packet.count + (rtcp ? profile.rtcpOverhead : profile.rtpOverhead),
            "protect added an unexpected number of bytes")
        do {
            let receiver = try session(.inbound, profile)
            let clear = try rtcp ? receiver.unprotectRTCP(protected) : receiver.unprotect(protected)
            precondition(clear == packet, "unprotect did not give back what protect was given")
        } catch {
            preconditionFailure("a packet this session protected did not unprotect: \(error)")
        }
        // Flip one bit chosen by the packet itself: the tag covers every byte, so this must fail.
        var forged = protected
        let bit = packet.reduce(0) { $0 &* 31 &+ Int($1) } & 0x7FFF_FFFF
        forged[(bit / 8) % forged.count] ^= UInt8(1 << (bit % 8))
        if let receiver = try? session(.inbound, profile),
            (try? rtcp ? receiver.unprotectRTCP(forged) : receiver.unprotect(forged)) != nil
        {
            preconditionFailure("a forged packet was accepted")
        }
    }
}
