internal import CCrypto

/// HMAC-SHA1 (RFC 2104) with its key folded in once: the SHA-1 states after the key XOR ipad block
/// and after the key XOR opad block are computed when the session is made, and each packet starts
/// from copies of them (two SHA-1 compressions saved per packet, no allocation, no EVP lookup).
///
/// A plain value holding a pointer to the two states; its owner calls ``release()`` exactly once,
/// which wipes them.
struct SRTPAuthenticator {
    /// The inner state at index 0, the outer at index 1.
    private let states: UnsafeMutablePointer<SHA_CTX>

    /// Authenticator for the HMAC key at `key` (20 bytes for SRTP).
    init(key: UnsafeRawBufferPointer) {
        states = .allocate(capacity: 2)
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { block in
            for (state, pad) in [(states, UInt8(0x36)), (states + 1, UInt8(0x5C))] {
                for index in 0..<64 { block[index] = (index < key.count ? key[index] : 0) ^ pad }
                SHA1_Init(state)
                SHA1_Update(state, block.baseAddress, 64)
            }
            OPENSSL_cleanse(block.baseAddress, 64)
        }
    }

    /// Wipes and frees the precomputed states.
    func release() {
        OPENSSL_cleanse(states, 2 * MemoryLayout<SHA_CTX>.size)
        states.deallocate()
    }

    /// Writes the first `count` (≤ 20) bytes of HMAC-SHA1(message ‖ rollover counter) to `tag`: the
    /// `length` bytes at `message`, followed by `roc` in network byte order if it is given (SRTP), or
    /// by nothing (SRTCP).
    func tag(_ message: UnsafeRawPointer, length: Int, roc: UInt32?, into tag: UnsafeMutableRawPointer, count: Int) {
        var inner = states[0]
        SHA1_Update(&inner, message, length)
        if let roc {
            var bigEndian = roc.bigEndian
            SHA1_Update(&inner, &bigEndian, 4)
        }
        var digest: (UInt64, UInt64, UInt32) = (0, 0, 0)
        withUnsafeMutableBytes(of: &digest) { raw in
            let bytes = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
            SHA1_Final(bytes, &inner)
            var outer = states[1]
            SHA1_Update(&outer, bytes, 20)
            SHA1_Final(bytes, &outer)
            tag.copyMemory(from: bytes, byteCount: count)
        }
    }

    /// Whether the `count`-byte tag at `received` is the one ``tag(_:length:roc:into:count:)`` makes,
    /// compared in constant time.
    func verify(_ message: UnsafeRawPointer, length: Int, roc: UInt32?, received: UnsafeRawPointer, count: Int) -> Bool
    {
        var expected: (UInt64, UInt64, UInt32) = (0, 0, 0)
        return withUnsafeMutableBytes(of: &expected) { raw in
            tag(message, length: length, roc: roc, into: raw.baseAddress!, count: count)
            return CRYPTO_memcmp(raw.baseAddress, received, count) == 0
        }
    }
}
