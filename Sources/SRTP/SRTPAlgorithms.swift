internal import CCrypto

/// The OpenSSL cipher implementations SRTP uses, fetched from the default provider once per process.
///
/// Passing a fetched `EVP_CIPHER` to `EVP_CipherInit_ex` avoids the implicit fetch (a locked
/// provider lookup) that the legacy `EVP_aes_128_ctr()` handles cost at every keying.
enum SRTPAlgorithms {
    /// AES-128 in counter mode: the SRTP keystream (RFC 3711 §4.1.1) and the key derivation PRF.
    nonisolated(unsafe) static let aes128CTR: OpaquePointer? = EVP_CIPHER_fetch(nil, "AES-128-CTR", nil)
    /// AES-128-GCM: the AEAD of RFC 7714.
    nonisolated(unsafe) static let aes128GCM: OpaquePointer? = EVP_CIPHER_fetch(nil, "AES-128-GCM", nil)
}
