/// What a key derived from the master key is for (RFC 3711 §4.3.1 and §4.3.2): the label the key
/// derivation PRF mixes into its IV (see ``SRTPNonce/keyDerivation(masterSalt:label:)``).
@_spi(SRTPInternals) public enum SRTPKeyLabel: UInt8, Sendable {
    /// The SRTP encryption key.
    case rtpEncryption = 0x00
    /// The SRTP authentication (HMAC) key.
    case rtpAuthentication = 0x01
    /// The SRTP session salt.
    case rtpSalt = 0x02
    /// The SRTCP encryption key.
    case rtcpEncryption = 0x03
    /// The SRTCP authentication (HMAC) key.
    case rtcpAuthentication = 0x04
    /// The SRTCP session salt.
    case rtcpSalt = 0x05

    /// The labels of the keys one half of a session needs: SRTP's (`rtcp == false`) or SRTCP's.
    public static func labels(rtcp: Bool) -> (encryption: Self, authentication: Self, salt: Self) {
        rtcp ? (.rtcpEncryption, .rtcpAuthentication, .rtcpSalt) : (.rtpEncryption, .rtpAuthentication, .rtpSalt)
    }
}
