/// The per-packet IVs and the key derivation IV, built on the stack from a salt (16 bytes, zero-padded).
///
/// Shared by `SRTPSession` (libcrypto) and `PortableSRTPSession` (swift-crypto); `@inlinable` because
/// the relay builds one IV per packet.
@_spi(SRTPInternals) public enum SRTPNonce {
    /// A 16-byte IV in memory order.
    public typealias Block = (UInt64, UInt64)

    /// A salt (14 or 12 bytes) as a block: its bytes first, then zeros. For an AES-CM session salt
    /// that is the salt already shifted left by 16 bits, as the counter block wants it.
    @inlinable
    public static func block(salt: UnsafeRawBufferPointer) -> Block {
        precondition(salt.count <= 16)
        var block: Block = (0, 0)
        withUnsafeMutableBytes(of: &block) { $0.copyMemory(from: salt) }
        return block
    }

    /// The key derivation PRF's counter block for `label` (RFC 3711 §4.3.1 with key derivation rate
    /// 0): `(master salt XOR label · 2^48) · 2^16`, the master salt given as ``block(salt:)``.
    @inlinable
    public static func keyDerivation(masterSalt: Block, label: SRTPKeyLabel) -> Block {
        var block = masterSalt
        withUnsafeMutableBytes(of: &block) { $0[7] ^= label.rawValue }
        return block
    }

    /// AES-CM counter block (RFC 3711 §4.1.1): `(salt · 2^16) XOR (SSRC · 2^64) XOR (index · 2^16)`,
    /// where `index` is the 48-bit SRTP index or the 31-bit SRTCP index. The salt is stored already
    /// shifted (its 14 bytes first, then two zero bytes).
    @inlinable @inline(__always)
    public static func counter(salt: Block, ssrc: UInt32, index: UInt64) -> Block {
        var block = salt
        withUnsafeMutableBytes(of: &block) { bytes in
            xor(ssrc, into: bytes, at: 4)
            xor(UInt32(truncatingIfNeeded: index >> 32), into: bytes, at: 8, width: 2)
            xor(UInt32(truncatingIfNeeded: index), into: bytes, at: 10)
        }
        return block
    }

    /// AES-GCM IV for SRTP (RFC 7714 §8.1): `salt XOR (0x0000 ‖ SSRC ‖ ROC ‖ SEQ)`, the first 12 bytes.
    @inlinable @inline(__always)
    public static func gcmRTP(salt: Block, ssrc: UInt32, roc: UInt32, sequence: UInt16) -> Block {
        var block = salt
        withUnsafeMutableBytes(of: &block) { bytes in
            xor(ssrc, into: bytes, at: 2)
            xor(roc, into: bytes, at: 6)
            xor(UInt32(sequence), into: bytes, at: 10, width: 2)
        }
        return block
    }

    /// AES-GCM IV for SRTCP (RFC 7714 §9.1): `salt XOR (0x0000 ‖ SSRC ‖ 0x0000 ‖ 0 ‖ SRTCP index)`,
    /// the first 12 bytes.
    @inlinable @inline(__always)
    public static func gcmRTCP(salt: Block, ssrc: UInt32, index: UInt32) -> Block {
        var block = salt
        withUnsafeMutableBytes(of: &block) { bytes in
            xor(ssrc, into: bytes, at: 2)
            xor(index, into: bytes, at: 8)
        }
        return block
    }

    /// XORs the low `width` bytes of `value`, big-endian, into `bytes` at `offset`.
    @inlinable @inline(__always)
    static func xor(_ value: UInt32, into bytes: UnsafeMutableRawBufferPointer, at offset: Int, width: Int = 4) {
        for byte in 0..<width {
            bytes[offset + byte] ^= UInt8(truncatingIfNeeded: value >> (8 * (width - 1 - byte)))
        }
    }
}
