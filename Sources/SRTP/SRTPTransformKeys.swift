internal import CCrypto
@_spi(SRTPInternals) import SRTPFormat

/// The session keys of one half of a session (SRTP or SRTCP), derived from the master key: a cipher
/// context keyed with the session encryption key, the session salt, and for AES-CM the HMAC key's
/// precomputed states. A plain value; its owner calls ``release()`` exactly once.
struct SRTPTransformKeys {
    let cipher: SRTPCipherContext
    /// The session salt, zero-padded to 16 bytes: the base of every IV.
    let salt: UnsafeMutablePointer<SRTPNonce.Block>
    /// HMAC-SHA1 for AES-CM; nil for GCM, which authenticates with its own tag.
    let authenticator: SRTPAuthenticator?

    /// Derives the keys for SRTP (`rtcp == false`) or SRTCP from `derivation`.
    init(profile: SRTPProfile, derivation: SRTPKeyDerivation, rtcp: Bool, encrypt: Bool) throws(SRTPError) {
        let labels = SRTPKeyLabel.labels(rtcp: rtcp)
        // Scratch for the encryption key (16) and the HMAC key (20), wiped before returning.
        var scratch: (UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0)
        defer { withUnsafeMutableBytes(of: &scratch) { OPENSSL_cleanse($0.baseAddress, $0.count) } }

        salt = .allocate(capacity: 1)
        salt.initialize(to: (0, 0))
        do {
            try derivation.derive(
                labels.salt, into: UnsafeMutableRawBufferPointer(start: salt, count: profile.saltLength))
            cipher = try withUnsafeMutableBytes(of: &scratch) { raw in
                Result { () throws(SRTPError) in
                    let key = UnsafeMutableRawBufferPointer(rebasing: raw[0..<16])
                    try derivation.derive(labels.encryption, into: key)
                    let algorithm = profile == .aeadAES128GCM ? SRTPAlgorithms.aes128GCM : SRTPAlgorithms.aes128CTR
                    return try SRTPCipherContext(cipher: algorithm, key: key.baseAddress!, encrypt: encrypt)
                }
            }.get()
        } catch {
            salt.deallocate()
            throw error
        }
        if profile == .aesCM128HMACSHA1_80 {
            do {
                authenticator = try withUnsafeMutableBytes(of: &scratch) { raw in
                    Result { () throws(SRTPError) in
                        let key = UnsafeMutableRawBufferPointer(rebasing: raw[16..<36])
                        try derivation.derive(labels.authentication, into: key)
                        return SRTPAuthenticator(key: UnsafeRawBufferPointer(key))
                    }
                }.get()
            } catch {
                cipher.release()
                salt.deallocate()
                throw error
            }
        } else {
            authenticator = nil
        }
    }

    /// Wipes and frees everything.
    func release() {
        OPENSSL_cleanse(salt, MemoryLayout<SRTPNonce.Block>.size)
        salt.deallocate()
        cipher.release()
        authenticator?.release()
    }
}
