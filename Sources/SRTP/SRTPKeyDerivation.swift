internal import CCrypto
@_spi(SRTPInternals) import SRTPFormat

/// The SRTP key derivation function (RFC 3711 §4.3): the AES-CM PRF keyed with the master key, with
/// key derivation rate 0, so each session key depends only on the master key, master salt and label.
/// RFC 7714 §11 uses the same PRF for AES-GCM, with the 12-byte master salt.
struct SRTPKeyDerivation {
    /// What a derived key is for (RFC 3711 §4.3.1 and §4.3.2).
    typealias Label = SRTPKeyLabel

    private let prf: SRTPCipherContext
    /// The master salt, padded with zeros to a 16-byte counter block.
    private var salt: SRTPNonce.Block

    /// A derivation from the master key (16 bytes) and master salt (14 or 12 bytes).
    init(masterKey: ArraySlice<UInt8>, masterSalt: ArraySlice<UInt8>) throws(SRTPError) {
        precondition(masterKey.count == 16 && masterSalt.count <= 14)
        prf = try masterKey.withUnsafeBytes { key in
            Result { () throws(SRTPError) in
                try SRTPCipherContext(cipher: SRTPAlgorithms.aes128CTR, key: key.baseAddress!, encrypt: true)
            }
        }.get()
        salt = masterSalt.withUnsafeBytes { SRTPNonce.block(salt: $0) }
    }

    /// Wipes the salt copy and frees the PRF context.
    mutating func release() {
        withUnsafeMutableBytes(of: &salt) { OPENSSL_cleanse($0.baseAddress, $0.count) }
        prf.release()
    }

    /// Writes the first `output.count` bytes of the PRF's keystream for `label`:
    /// AES-CM(master key, IV = (master salt XOR label · 2^48) · 2^16), RFC 3711 §4.3.1/§4.3.3.
    func derive(_ label: Label, into output: UnsafeMutableRawBufferPointer) throws(SRTPError) {
        var iv = SRTPNonce.keyDerivation(masterSalt: salt, label: label)
        output.initializeMemory(as: UInt8.self, repeating: 0)
        let done = withUnsafeBytes(of: &iv) { ivBytes in
            prf.applyKeystream(iv: ivBytes.baseAddress!, data: output.baseAddress!, count: output.count)
        }
        withUnsafeMutableBytes(of: &iv) { OPENSSL_cleanse($0.baseAddress, $0.count) }
        guard done else { throw .cryptoFailure("AES-CM key derivation") }
    }
}
