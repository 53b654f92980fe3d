@_spi(SRTPInternals) import SRTPFormat
import Testing

@testable import SRTP

/// Published test vectors: RFC 3711 Appendix B and libsrtp's own srtp_validate() vectors
/// (test/srtp_driver.c), for AES-CM and GCM. The packet vectors run on SRTPSession and
/// PortableSRTPSession; PortableSRTPKnownAnswerTests runs Appendix B on the portable primitives.
@Suite("SRTP known answers")
struct SRTPKnownAnswerTests {
    private static func hex(_ text: String) -> [UInt8] { SRTPTestPackets.hex(text) }

    @Test("RFC 3711 B.2: AES-CM keystream from session key, salt, SSRC 0 and index 0")
    func aesCounterModeKeystream() throws {
        let sessionKey = Self.hex("2B7E151628AED2A6ABF7158809CF4F3C")
        var salt: SRTPNonce.Block = (0, 0)
        withUnsafeMutableBytes(of: &salt) { block in
            for (offset, byte) in Self.hex("F0F1F2F3F4F5F6F7F8F9FAFBFCFD").enumerated() { block[offset] = byte }
        }
        let cipher = try sessionKey.withUnsafeBytes { key in
            Result { () throws(SRTPError) in
                try SRTPCipherContext(cipher: SRTPAlgorithms.aes128CTR, key: key.baseAddress!, encrypt: true)
            }
        }.get()
        defer { cipher.release() }
        var iv = SRTPNonce.counter(salt: salt, ssrc: 0, index: 0)
        var keystream = [UInt8](repeating: 0, count: 0xFF02 * 16)
        let ok = withUnsafeBytes(of: &iv) { ivBytes in
            keystream.withUnsafeMutableBytes {
                cipher.applyKeystream(iv: ivBytes.baseAddress!, data: $0.baseAddress!, count: $0.count)
            }
        }
        #expect(ok)
        let blocks: [(Int, String)] = [
            (0x0000, "E03EAD0935C95E80E166B16DD92B4EB4"),
            (0x0001, "D23513162B02D0F72A43A2FE4A5F97AB"),
            (0x0002, "41E95B3BB0A2E8DD477901E4FCA894C0"),
            (0xFEFF, "EC8CDF7398607CB0F2D21675EA9EA1E4"),
            (0xFF00, "362B7C3C6773516318A077D7FC5073AE"),
            (0xFF01, "6A2CC3787889374FBEB4C81B17BA6C44"),
        ]
        for (counter, expected) in blocks {
            #expect(Array(keystream[counter * 16..<counter * 16 + 16]) == Self.hex(expected), "block \(counter)")
        }
    }

    @Test("RFC 3711 B.3: every session key and salt from the master key (RTCP labels checked against openssl enc)")
    func keyDerivation() throws {
        var derivation = try SRTPKeyDerivation(
            masterKey: ArraySlice(Self.hex("E1F97A0D3E018BE0D64FA32C06DE4139")),
            masterSalt: ArraySlice(Self.hex("0EC675AD498AFEEBB6960B3AABE6"))
        )
        defer { derivation.release() }
        let expected: [(SRTPKeyDerivation.Label, String)] = [
            (.rtpEncryption, "C61E7A93744F39EE10734AFE3FF7A087"),
            (.rtpSalt, "30CBBC08863D8C85D49DB34A9AE1"),
            (.rtpAuthentication, "CEBE321F6FF7716B6FD4AB49AF256A156D38BAA4"),
            (.rtcpEncryption, "4C1AA45A81F73D61C800BBB00FBB1EAA"),
            (.rtcpSalt, "9581C7AD87B3E530BF3E4454A8B3"),
            (.rtcpAuthentication, "8D54534FEB49AE8E7993A6BD0B844FC323A93DFD"),
        ]
        for (label, value) in expected {
            var output = [UInt8](repeating: 0xEE, count: value.count / 2)
            try output.withUnsafeMutableBytes { buffer in
                Result { () throws(SRTPError) in try derivation.derive(label, into: buffer) }
            }.get()
            #expect(output == Self.hex(value), "label \(label)")
        }
    }

    private static let rtp = hex("800F1234DECAFBADCAFEBABE") + [UInt8](repeating: 0xAB, count: 16)
    private static let rtcp = hex("81C8000BCAFEBABE") + [UInt8](repeating: 0xAB, count: 16)

    @Test("libsrtp's srtp_validate(): AES_CM_128_HMAC_SHA1_80, SSRC 0xcafebabe", arguments: SRTPImplementation.ours)
    func libsrtpValidationVectors(implementation: SRTPImplementation) throws {
        let key = try SRTPKey(bytes: Self.hex("E1F97A0D3E018BE0D64FA32C06DE41390EC675AD498AFEEBB6960B3AABE6"))
        let srtp = Self.hex(
            """
            800F1234DECAFBADCAFEBABE4E55DC4CE79978D88CA4D215949D2402B78D6ACC99EA179B8DBB
            """)
        let srtcp = Self.hex(
            """
            81C8000BCAFEBABE7128035BE487B9BDBEF89041F977A5A880000001993E08CD54D6C1230798
            """)
        try check(implementation, key: key, profile: .aesCM128HMACSHA1_80, srtp: srtp, srtcp: srtcp)
    }

    @Test("libsrtp's srtp_validate_gcm(): AEAD_AES_128_GCM, SSRC 0xcafebabe", arguments: SRTPImplementation.ours)
    func libsrtpGCMValidationVectors(implementation: SRTPImplementation) throws {
        let key = try SRTPKey(bytes: Self.hex("000102030405060708090A0B0C0D0E0FA0A1A2A3A4A5A6A7A8A9AAAB"))
        let srtp = Self.hex(
            """
            800F1234DECAFBADCAFEBABEC5002EDE04CFDD2EB91159E0880AA06ED2976826F796B201DF3131A127E8A392
            """)
        let srtcp = Self.hex(
            """
            81C8000BCAFEBABEC98B8B5DF0392A55852B6C21AC8E7025C52C6FBEA2B3B446EA31123BA88CE61E80000001
            """)
        try check(implementation, key: key, profile: .aeadAES128GCM, srtp: srtp, srtcp: srtcp)
    }

    private func check(
        _ implementation: SRTPImplementation, key: SRTPKey, profile: SRTPProfile, srtp: [UInt8], srtcp: [UInt8]
    ) throws {
        let sender = try implementation.session(.outbound, key: key, ssrc: .specific(0xCAFE_BABE), profile: profile)
        let receiver = try implementation.session(.inbound, key: key, ssrc: .specific(0xCAFE_BABE), profile: profile)
        #expect(try sender.protect(Self.rtp) == srtp)
        #expect(try receiver.unprotect(srtp) == Self.rtp)
        #expect(try sender.protectRTCP(Self.rtcp) == srtcp)
        #expect(try receiver.unprotectRTCP(srtcp) == Self.rtcp)
    }
}
