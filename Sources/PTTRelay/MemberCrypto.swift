import PTTCore
import RTP
import SRTP

/// A member's media protection on the relay: SRTP with the member's key (inbound from its SSRC, outbound
/// on its listen SSRC), or nothing when the operator chose `mediaSecurity: none`.
///
/// Used only on the relay's event loop.
final class MemberCrypto {
    private let inbound: SRTPSession?
    private let outbound: SRTPSession?

    /// Bytes a protected RTP packet may grow by (the SRTP authentication tag).
    static let maxTrailer = SRTPSession.rtpTrailerCapacity

    /// - Parameter suite: the member's SRTP suite (both directions).
    init(key: [UInt8], suite: MediaSuite = .default, ssrc: UInt32, listenSSRC: UInt32, secure: Bool) throws {
        if secure {
            let profile = Self.profile(suite)
            inbound = try SRTPSession(direction: .inbound, key: key, ssrc: .specific(ssrc), profile: profile)
            outbound = try SRTPSession(direction: .outbound, key: key, ssrc: .specific(listenSSRC), profile: profile)
        } else {
            inbound = nil
            outbound = nil
        }
    }

    /// The SRTP profile of a membership's suite.
    static func profile(_ suite: MediaSuite) -> SRTPProfile {
        switch suite {
        case .aesCM128HMACSHA1_80: .aesCM128HMACSHA1_80
        case .aeadAES128GCM: .aeadAES128GCM
        }
    }

    /// Authenticates and decrypts an RTP packet in place; nil if it fails (bad tag, replay).
    func unprotectRTP(_ packet: UnsafeMutableRawBufferPointer, length: Int) -> Int? {
        guard let inbound else { return length }
        return try? inbound.unprotect(packet.baseAddress!, length: length)
    }

    /// Authenticates and decrypts an RTCP packet in place; nil if it fails.
    func unprotectRTCP(_ packet: UnsafeMutableRawBufferPointer, length: Int) -> Int? {
        guard let inbound else { return length }
        return try? inbound.unprotectRTCP(packet.baseAddress!, length: length)
    }

    /// Writes one relayed copy for this member into `out` (the 16-byte header: its `ssrc`, `sequence`, the
    /// channel's `timestamp`, the speaker in CSRC; then the Opus `payload`) and protects it in place. Returns its
    /// length, 0 if it could not be written or protected.
    @inline(__always)
    func writeCopy(
        into out: UnsafeMutableRawBufferPointer, marker: Bool, sequence: UInt16, timestamp: UInt32, ssrc: UInt32,
        csrc: UInt32, payload: UnsafeRawBufferPointer
    ) -> Int {
        guard
            let length = try? RTPHeader.writePacket(
                into: out, marker: marker, payloadType: RelayRules.opusPayloadType, sequenceNumber: sequence,
                timestamp: timestamp, ssrc: ssrc, csrc: csrc, payload: payload)
        else { return 0 }
        return protectRTP(out.baseAddress!, length: length, capacity: out.count) ?? 0
    }

    /// Encrypts and signs an RTP packet in place (the buffer has room for the tag); nil if it fails.
    func protectRTP(_ packet: UnsafeMutableRawPointer, length: Int, capacity: Int) -> Int? {
        guard let outbound else { return length }
        return try? outbound.protect(packet, length: length, capacity: capacity)
    }
}
