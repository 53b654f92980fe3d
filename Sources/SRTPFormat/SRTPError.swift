/// An SRTP failure: a packet that does not verify or does not parse, or a session or key that cannot
/// be made.
public enum SRTPError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The authentication tag did not verify: tampered packet, wrong key, or not SRTP at all.
    case authFail
    /// The packet index was already seen, or is older than the replay window. On the sending side:
    /// the same sequence number was protected twice (see `allowRepeatTransmit`).
    case replayFail
    /// A malformed or too short packet: shorter than its header, CSRC list or header extension plus
    /// the trailer, not RTP version 2, or a negative length.
    case badParam
    /// The packet's SSRC is not the one a session made for one specific SSRC accepts.
    case unknownSSRC
    /// The master key + salt does not have the length the profile needs (30 bytes for
    /// `AES_CM_128_HMAC_SHA1_80`, 28 for `AEAD_AES_128_GCM`).
    case badKeyLength(Int)
    /// The key text is not base64 of a 28- or 30-byte key.
    case badKeyEncoding
    /// The replay window size is outside 64 ..< 32768.
    case badReplayWindow(Int)
    /// The buffer cannot hold the packet plus what `protect` appends.
    case insufficientCapacity(needed: Int, available: Int)
    /// `protect` called on an inbound session or `unprotect` on an outbound one.
    case wrongDirection
    /// The session has used up its SRTCP index space (2^31 packets): it needs a new key.
    case indexExhausted
    /// A call into the crypto library failed (OpenSSL for `SRTPSession`, for instance it could not
    /// allocate a cipher context; swift-crypto for `PortableSRTPSession`); names the call.
    case cryptoFailure(String)

    public var description: String {
        switch self {
        case .authFail: "SRTP authentication failed (tampered packet or wrong key)"
        case .replayFail: "SRTP replay check failed (packet index repeated or too old)"
        case .badParam: "SRTP bad parameter (malformed or too short packet)"
        case .unknownSSRC: "SRTP session does not accept this packet's SSRC"
        case let .badKeyLength(length):
            "SRTP master key + salt must be 30 bytes (AES_CM_128_HMAC_SHA1_80) or 28 bytes (AEAD_AES_128_GCM), got \(length)"
        case .badKeyEncoding: "SRTP key is not base64 of 28 or 30 bytes"
        case let .badReplayWindow(size): "SRTP replay window must be 64 ..< 32768, got \(size)"
        case let .insufficientCapacity(needed, available):
            "SRTP buffer too small: \(needed) bytes needed (packet + trailer), \(available) available"
        case .wrongDirection: "SRTP session used in the wrong direction"
        case .indexExhausted: "SRTCP index space used up: the session needs a new key"
        case let .cryptoFailure(call): "SRTP crypto library call failed: \(call)"
        }
    }
}
