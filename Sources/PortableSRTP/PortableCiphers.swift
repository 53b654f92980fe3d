internal import Crypto
internal import Foundation
@_spi(SRTPInternals) import SRTPFormat
internal import _CryptoExtras

/// AES-128 in counter mode on swift-crypto (`AES._CTR`), started from a whole 16-byte counter block:
/// the SRTP keystream (RFC 3711 §4.1.1) and the key derivation PRF (§4.3.3).
enum PortableCounterMode {
    /// `data` XORed with the keystream of `key` that starts at the counter block `iv` (encryption and
    /// decryption are the same operation).
    static func apply(_ data: some DataProtocol, key: SymmetricKey, iv: SRTPNonce.Block) throws(SRTPError) -> Data {
        guard !data.isEmpty else { return Data() }
        do {
            let nonce = try withUnsafeBytes(of: iv) { try AES._CTR.Nonce(nonceBytes: $0) }
            return try AES._CTR.encrypt(data, using: key, nonce: nonce)
        } catch {
            throw .cryptoFailure("AES._CTR.encrypt")
        }
    }
}

/// AES-128-GCM on swift-crypto (`AES.GCM`) with the 12-byte IVs of RFC 7714 and its 16-byte tag.
enum PortableGCM {
    /// Encrypts `plaintext` and authenticates it with `aad`; the ciphertext (as long as `plaintext`)
    /// and the 16-byte tag.
    static func seal(
        _ plaintext: some DataProtocol, key: SymmetricKey, iv: SRTPNonce.Block, aad: some DataProtocol
    ) throws(SRTPError) -> (ciphertext: Data, tag: Data) {
        do {
            let box = try AES.GCM.seal(plaintext, using: key, nonce: nonce(iv), authenticating: aad)
            return (box.ciphertext, box.tag)
        } catch {
            throw .cryptoFailure("AES.GCM.seal")
        }
    }

    /// Checks the 16-byte `tag` over `aad` and `ciphertext` and decrypts it; `authFail` if the tag
    /// does not verify (or the parts are malformed).
    static func open(
        _ ciphertext: some DataProtocol, tag: some DataProtocol, key: SymmetricKey, iv: SRTPNonce.Block,
        aad: some DataProtocol
    ) throws(SRTPError) -> Data {
        do {
            let box = try AES.GCM.SealedBox(nonce: nonce(iv), ciphertext: ciphertext, tag: tag)
            return try AES.GCM.open(box, using: key, authenticating: aad)
        } catch {
            throw .authFail
        }
    }

    /// The first 12 bytes of `iv` as a GCM nonce.
    private static func nonce(_ iv: SRTPNonce.Block) throws -> AES.GCM.Nonce {
        try withUnsafeBytes(of: iv) { try AES.GCM.Nonce(data: UnsafeRawBufferPointer(rebasing: $0[..<12])) }
    }
}

/// HMAC-SHA1 truncated to the profile's tag (RFC 3711 §4.2.1) on swift-crypto: keyed once, when the
/// session is made, so the HMAC's inner and outer states after the key blocks are computed once and
/// each packet starts from a copy of them.
struct PortableAuthenticator {
    private let keyed: HMAC<Insecure.SHA1>

    /// An authenticator with the 20-byte session authentication key.
    init(key: SymmetricKey) {
        keyed = HMAC<Insecure.SHA1>(key: key)
    }

    /// The first `count` bytes of HMAC-SHA1(`message` ‖ `roc`), the rollover counter in network byte
    /// order if it is given (SRTP), nothing if not (SRTCP).
    func tag(_ message: some DataProtocol, roc: UInt32?, count: Int) -> [UInt8] {
        var mac = keyed
        mac.update(data: message)
        if let roc { withUnsafeBytes(of: roc.bigEndian) { mac.update(data: $0) } }
        return mac.finalize().withUnsafeBytes { Array($0.prefix(count)) }
    }

    /// Whether `received` is the tag ``tag(_:roc:count:)`` makes for `message`, compared in constant time.
    func verify(_ message: some DataProtocol, roc: UInt32?, received: ArraySlice<UInt8>) -> Bool {
        let expected = tag(message, roc: roc, count: received.count)
        return expected.withUnsafeBytes { mine in
            received.withUnsafeBytes { theirs in SRTPSecret.constantTimeEqual(mine, theirs) }
        }
    }
}
