/// The per-packet IVs, built on the stack from a session salt (16 bytes, zero-padded).
enum SRTPNonce {
    /// A 16-byte IV in memory order.
    typealias Block = (UInt64, UInt64)

    /// AES-CM counter block (RFC 3711 §4.1.1): `(salt · 2^16) XOR (SSRC · 2^64) XOR (index · 2^16)`,
    /// where `index` is the 48-bit SRTP index or the 31-bit SRTCP index. The salt is stored already
    /// shifted (its 14 bytes first, then two zero bytes).
    static func counter(salt: Block, ssrc: UInt32, index: UInt64) -> Block {
        var block = salt
        withUnsafeMutableBytes(of: &block) { bytes in
            xor(ssrc, into: bytes, at: 4)
            xor(UInt32(truncatingIfNeeded: index >> 32), into: bytes, at: 8, width: 2)
            xor(UInt32(truncatingIfNeeded: index), into: bytes, at: 10)
        }
        return block
    }

    /// AES-GCM IV for SRTP (RFC 7714 §8.1): `salt XOR (0x0000 ‖ SSRC ‖ ROC ‖ SEQ)`, 12 bytes.
    static func gcmRTP(salt: Block, ssrc: UInt32, roc: UInt32, sequence: UInt16) -> Block {
        var block = salt
        withUnsafeMutableBytes(of: &block) { bytes in
            xor(ssrc, into: bytes, at: 2)
            xor(roc, into: bytes, at: 6)
            xor(UInt32(sequence), into: bytes, at: 10, width: 2)
        }
        return block
    }

    /// AES-GCM IV for SRTCP (RFC 7714 §9.1): `salt XOR (0x0000 ‖ SSRC ‖ 0x0000 ‖ 0 ‖ SRTCP index)`.
    static func gcmRTCP(salt: Block, ssrc: UInt32, index: UInt32) -> Block {
        var block = salt
        withUnsafeMutableBytes(of: &block) { bytes in
            xor(ssrc, into: bytes, at: 2)
            xor(index, into: bytes, at: 8)
        }
        return block
    }

    /// XORs the low `width` bytes of `value`, big-endian, into `bytes` at `offset`.
    @inline(__always)
    private static func xor(_ value: UInt32, into bytes: UnsafeMutableRawBufferPointer, at offset: Int, width: Int = 4)
    {
        for byte in 0..<width {
            bytes[offset + byte] ^= UInt8(truncatingIfNeeded: value >> (8 * (width - 1 - byte)))
        }
    }
}
