internal import CCrypto

/// One OpenSSL cipher context keyed once (at session creation) and reused for every packet: each
/// packet only sets a new IV, so no key schedule is recomputed and nothing is allocated.
///
/// A plain value holding the context pointer; its owner calls ``release()`` exactly once (OpenSSL
/// wipes the key schedule when the context is freed).
struct SRTPCipherContext {
    private let context: OpaquePointer

    /// A context for `cipher` keyed with the 16 bytes at `key`, encrypting or decrypting.
    init(cipher: OpaquePointer?, key: UnsafeRawPointer, encrypt: Bool) throws(SRTPError) {
        guard let cipher else { throw .cryptoFailure("EVP_CIPHER_fetch") }
        guard let context = EVP_CIPHER_CTX_new() else { throw .cryptoFailure("EVP_CIPHER_CTX_new") }
        guard
            EVP_CipherInit_ex(context, cipher, nil, key.assumingMemoryBound(to: UInt8.self), nil, encrypt ? 1 : 0) == 1
        else {
            EVP_CIPHER_CTX_free(context)
            throw .cryptoFailure("EVP_CipherInit_ex")
        }
        self.context = context
    }

    /// Frees the context.
    func release() {
        EVP_CIPHER_CTX_free(context)
    }

    /// AES counter mode: XORs `count` bytes at `data` in place with the keystream that starts at the
    /// 16-byte counter block `iv` (encryption and decryption are the same operation).
    func applyKeystream(iv: UnsafeRawPointer, data: UnsafeMutableRawPointer, count: Int) -> Bool {
        guard EVP_CipherInit_ex(context, nil, nil, nil, iv.assumingMemoryBound(to: UInt8.self), -1) == 1 else {
            return false
        }
        guard count > 0 else { return true }
        var written: Int32 = 0
        let bytes = data.assumingMemoryBound(to: UInt8.self)
        return EVP_CipherUpdate(context, bytes, &written, bytes, Int32(count)) == 1
    }

    /// AES-GCM encryption with the 12-byte `iv`: authenticates the two AAD pieces, encrypts `count`
    /// bytes at `data` in place and writes the 16-byte tag to `tag`.
    func seal(
        iv: UnsafeRawPointer, aad: UnsafeRawBufferPointer, aadTail: UnsafeRawBufferPointer,
        data: UnsafeMutableRawPointer, count: Int, tag: UnsafeMutableRawPointer
    ) -> Bool {
        guard start(iv: iv, aad: aad, aadTail: aadTail), update(data, count: count) else { return false }
        var written: Int32 = 0
        var scratch: UInt64 = 0
        let finished = withUnsafeMutableBytes(of: &scratch) {
            EVP_CipherFinal_ex(context, $0.baseAddress!.assumingMemoryBound(to: UInt8.self), &written) == 1
        }
        return finished && ccrypto_gcm_get_tag(context, tag, 16) == 1
    }

    /// AES-GCM decryption with the 12-byte `iv`: decrypts `count` bytes at `data` in place and checks
    /// the 16-byte `tag` over the AAD pieces and the ciphertext. False if the tag does not verify (the
    /// data is then garbage).
    func open(
        iv: UnsafeRawPointer, aad: UnsafeRawBufferPointer, aadTail: UnsafeRawBufferPointer,
        data: UnsafeMutableRawPointer, count: Int, tag: UnsafeRawPointer
    ) -> Bool {
        guard start(iv: iv, aad: aad, aadTail: aadTail), update(data, count: count),
            ccrypto_gcm_set_tag(context, tag, 16) == 1
        else { return false }
        var written: Int32 = 0
        var scratch: UInt64 = 0
        return withUnsafeMutableBytes(of: &scratch) {
            EVP_CipherFinal_ex(context, $0.baseAddress!.assumingMemoryBound(to: UInt8.self), &written) == 1
        }
    }

    private func start(iv: UnsafeRawPointer, aad: UnsafeRawBufferPointer, aadTail: UnsafeRawBufferPointer) -> Bool {
        guard EVP_CipherInit_ex(context, nil, nil, nil, iv.assumingMemoryBound(to: UInt8.self), -1) == 1 else {
            return false
        }
        return authenticate(aad) && authenticate(aadTail)
    }

    private func authenticate(_ piece: UnsafeRawBufferPointer) -> Bool {
        guard let base = piece.baseAddress, piece.count > 0 else { return true }
        var written: Int32 = 0
        return EVP_CipherUpdate(context, nil, &written, base.assumingMemoryBound(to: UInt8.self), Int32(piece.count))
            == 1
    }

    private func update(_ data: UnsafeMutableRawPointer, count: Int) -> Bool {
        guard count > 0 else { return true }
        var written: Int32 = 0
        let bytes = data.assumingMemoryBound(to: UInt8.self)
        return EVP_CipherUpdate(context, bytes, &written, bytes, Int32(count)) == 1
    }
}
