internal import Crypto
@_spi(SRTPInternals) import SRTPFormat

/// The session keys of one half of a ``PortableSRTPSession`` (SRTP or SRTCP), derived once from the
/// master key: the AES key, the session salt, and for AES-CM the keyed HMAC.
struct PortableTransformKeys {
    /// The 16-byte session encryption key.
    let cipherKey: SymmetricKey
    /// The session salt, zero-padded to 16 bytes: the base of every IV.
    private(set) var salt: SRTPNonce.Block
    /// HMAC-SHA1 for AES-CM; nil for GCM, which authenticates with its own tag.
    let authenticator: PortableAuthenticator?

    /// Derives the keys for SRTP (`rtcp == false`) or SRTCP.
    init(profile: SRTPProfile, derivation: PortableKeyDerivation, rtcp: Bool) throws(SRTPError) {
        let labels = SRTPKeyLabel.labels(rtcp: rtcp)
        cipherKey = try derivation.key(labels.encryption, count: profile.masterKeyLength)
        salt = try derivation.salt(labels.salt, count: profile.saltLength)
        switch profile {
        case .aesCM128HMACSHA1_80:
            authenticator = PortableAuthenticator(key: try derivation.key(labels.authentication, count: 20))
        case .aeadAES128GCM:
            authenticator = nil
        }
    }

    /// Wipes the salt (the keys and the HMAC's states wipe themselves when freed).
    mutating func wipe() {
        withUnsafeMutableBytes(of: &salt) { SRTPSecret.wipe($0) }
    }
}
