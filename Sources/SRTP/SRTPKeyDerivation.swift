internal import CCrypto

/// The SRTP key derivation function (RFC 3711 §4.3): the AES-CM PRF keyed with the master key, with
/// key derivation rate 0, so each session key depends only on the master key, master salt and label.
/// RFC 7714 §11 uses the same PRF for AES-GCM, with the 12-byte master salt.
struct SRTPKeyDerivation {
    /// What a derived key is for (RFC 3711 §4.3.1 and §4.3.2).
    enum Label: UInt8 {
        case rtpEncryption = 0x00
        case rtpAuthentication = 0x01
        case rtpSalt = 0x02
        case rtcpEncryption = 0x03
        case rtcpAuthentication = 0x04
        case rtcpSalt = 0x05
    }

    private let prf: SRTPCipherContext
    /// The master salt, padded with zeros to a 16-byte counter block.
    private var salt: (UInt64, UInt64) = (0, 0)

    /// A derivation from the master key (16 bytes) and master salt (14 or 12 bytes).
    init(masterKey: ArraySlice<UInt8>, masterSalt: ArraySlice<UInt8>) throws(SRTPError) {
        precondition(masterKey.count == 16 && masterSalt.count <= 14)
        prf = try masterKey.withUnsafeBytes { key in
            Result { () throws(SRTPError) in
                try SRTPCipherContext(cipher: SRTPAlgorithms.aes128CTR, key: key.baseAddress!, encrypt: true)
            }
        }.get()
        withUnsafeMutableBytes(of: &salt) { block in
            for (offset, byte) in masterSalt.enumerated() { block[offset] = byte }
        }
    }

    /// Wipes the salt copy and frees the PRF context.
    mutating func release() {
        withUnsafeMutableBytes(of: &salt) { OPENSSL_cleanse($0.baseAddress, $0.count) }
        prf.release()
    }

    /// Writes the first `output.count` bytes of the PRF's keystream for `label`:
    /// AES-CM(master key, IV = (master salt XOR label · 2^48) · 2^16), RFC 3711 §4.3.1/§4.3.3.
    func derive(_ label: Label, into output: UnsafeMutableRawBufferPointer) throws(SRTPError) {
        var iv = salt
        withUnsafeMutableBytes(of: &iv) { $0[7] ^= label.rawValue }
        output.initializeMemory(as: UInt8.self, repeating: 0)
        let done = withUnsafeBytes(of: &iv) { ivBytes in
            prf.applyKeystream(iv: ivBytes.baseAddress!, data: output.baseAddress!, count: output.count)
        }
        withUnsafeMutableBytes(of: &iv) { OPENSSL_cleanse($0.baseAddress, $0.count) }
        guard done else { throw .cryptoFailure("AES-CM key derivation") }
    }
}
