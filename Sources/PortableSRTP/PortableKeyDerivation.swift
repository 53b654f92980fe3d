internal import Crypto
internal import Foundation
@_spi(SRTPInternals) import SRTPFormat

/// The SRTP key derivation (RFC 3711 §4.3, key derivation rate 0; RFC 7714 §11 for GCM) on
/// swift-crypto: the AES-CM PRF keyed with the master key, run once per label when a session is made.
struct PortableKeyDerivation {
    private let masterKey: SymmetricKey
    /// The master salt as a zero-padded counter block.
    private var masterSalt: SRTPNonce.Block

    /// A derivation from `key`'s master key and master salt.
    init(key: SRTPKey) {
        masterKey = SymmetricKey(data: key.masterKey)
        masterSalt = key.salt.withUnsafeBytes { SRTPNonce.block(salt: $0) }
    }

    /// Wipes the master salt copy (the `SymmetricKey` wipes itself when freed).
    mutating func wipe() {
        withUnsafeMutableBytes(of: &masterSalt) { SRTPSecret.wipe($0) }
    }

    /// The `count`-byte key for `label`, as a `SymmetricKey`.
    func key(_ label: SRTPKeyLabel, count: Int) throws(SRTPError) -> SymmetricKey {
        var bytes = try keystream(label, count: count)
        defer { bytes.withUnsafeMutableBytes { SRTPSecret.wipe($0) } }
        return SymmetricKey(data: bytes)
    }

    /// The `count`-byte salt for `label` (≤ 14), zero-padded to a block.
    func salt(_ label: SRTPKeyLabel, count: Int) throws(SRTPError) -> SRTPNonce.Block {
        var bytes = try keystream(label, count: count)
        defer { bytes.withUnsafeMutableBytes { SRTPSecret.wipe($0) } }
        return bytes.withUnsafeBytes { SRTPNonce.block(salt: $0) }
    }

    /// The first `count` bytes of the PRF's keystream for `label`.
    private func keystream(_ label: SRTPKeyLabel, count: Int) throws(SRTPError) -> Data {
        let iv = SRTPNonce.keyDerivation(masterSalt: masterSalt, label: label)
        return try PortableCounterMode.apply(Data(count: count), key: masterKey, iv: iv)
    }
}
