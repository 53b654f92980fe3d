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

    init(key: [UInt8], ssrc: UInt32, listenSSRC: UInt32, secure: Bool) throws {
        if secure {
            inbound = try SRTPSession(direction: .inbound, key: key, ssrc: .specific(ssrc))
            outbound = try SRTPSession(direction: .outbound, key: key, ssrc: .specific(listenSSRC))
        } else {
            inbound = nil
            outbound = nil
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

    /// Encrypts and signs an RTP packet in place (the buffer has room for the tag); nil if it fails.
    func protectRTP(_ packet: UnsafeMutableRawPointer, length: Int, capacity: Int) -> Int? {
        guard let outbound else { return length }
        return try? outbound.protect(packet, length: length, capacity: capacity)
    }
}
