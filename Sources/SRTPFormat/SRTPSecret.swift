/// Handling of key material without a crypto library: wiping it and comparing tags in constant
/// time. `SRTPSession` uses OpenSSL's `OPENSSL_cleanse` and `CRYPTO_memcmp`; `PortableSRTPSession`,
/// which has no libcrypto, uses these.
@_spi(SRTPInternals) public enum SRTPSecret {
    /// Overwrites `bytes` with zeros. Not inlined and not optimised, so the compiler cannot drop the
    /// stores as dead even when the memory is freed right after.
    @inline(never) @_optimize(none)
    public static func wipe(_ bytes: UnsafeMutableRawBufferPointer) {
        guard let base = bytes.baseAddress else { return }
        base.initializeMemory(as: UInt8.self, repeating: 0, count: bytes.count)
    }

    /// Whether `a` and `b` hold the same bytes, taking the same time whatever the bytes are (it
    /// depends only on the lengths).
    public static func constantTimeEqual(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in 0..<a.count { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}
