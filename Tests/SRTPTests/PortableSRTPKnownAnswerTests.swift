import Crypto
import Foundation
@_spi(SRTPInternals) import SRTPFormat
import Testing

@testable import PortableSRTP

/// RFC 3711 Appendix B on PortableSRTPSession's swift-crypto primitives: the AES-CM keystream
/// (`AES._CTR` with a whole 16-byte counter block) and the key derivation. The packet vectors
/// (libsrtp's srtp_validate) run on both sessions in SRTPKnownAnswerTests. `Crypto` comes with
/// PortableSRTP; the keystream test needs its `SymmetricKey`.
@Suite("PortableSRTP known answers")
struct PortableSRTPKnownAnswerTests {
    private static func hex(_ text: String) -> [UInt8] { SRTPTestPackets.hex(text) }

    @Test("RFC 3711 B.2: AES-CM keystream from session key, salt, SSRC 0 and index 0, across the 16-bit block counter")
    func aesCounterModeKeystream() throws {
        let sessionKey = SymmetricKey(data: Self.hex("2B7E151628AED2A6ABF7158809CF4F3C"))
        let salt = Self.hex("F0F1F2F3F4F5F6F7F8F9FAFBFCFD").withUnsafeBytes { SRTPNonce.block(salt: $0) }
        let iv = SRTPNonce.counter(salt: salt, ssrc: 0, index: 0)
        let keystream = [UInt8](
            try PortableCounterMode.apply([UInt8](repeating: 0, count: 0xFF02 * 16), key: sessionKey, iv: iv))
        let blocks: [(Int, String)] = [
            (0x0000, "E03EAD0935C95E80E166B16DD92B4EB4"),
            (0x0001, "D23513162B02D0F72A43A2FE4A5F97AB"),
            (0x0002, "41E95B3BB0A2E8DD477901E4FCA894C0"),
            (0xFEFF, "EC8CDF7398607CB0F2D21675EA9EA1E4"),
            (0xFF00, "362B7C3C6773516318A077D7FC5073AE"),
            (0xFF01, "6A2CC3787889374FBEB4C81B17BA6C44"),
        ]
        #expect(keystream.count == 0xFF02 * 16)
        for (counter, expected) in blocks {
            #expect(Array(keystream[counter * 16..<counter * 16 + 16]) == Self.hex(expected), "block \(counter)")
        }
    }

    @Test("RFC 3711 B.3: every session key and salt from the master key (RTCP labels as openssl enc gives them)")
    func keyDerivation() throws {
        let key = try SRTPKey(
            masterKey: Self.hex("E1F97A0D3E018BE0D64FA32C06DE4139"), salt: Self.hex("0EC675AD498AFEEBB6960B3AABE6"))
        var derivation = PortableKeyDerivation(key: key)
        defer { derivation.wipe() }
        let keys: [(SRTPKeyLabel, String)] = [
            (.rtpEncryption, "C61E7A93744F39EE10734AFE3FF7A087"),
            (.rtpAuthentication, "CEBE321F6FF7716B6FD4AB49AF256A156D38BAA4"),
            (.rtcpEncryption, "4C1AA45A81F73D61C800BBB00FBB1EAA"),
            (.rtcpAuthentication, "8D54534FEB49AE8E7993A6BD0B844FC323A93DFD"),
        ]
        for (label, value) in keys {
            let derived = try derivation.key(label, count: value.count / 2)
            #expect(derived.withUnsafeBytes { Array($0) } == Self.hex(value), "label \(label)")
        }
        let salts: [(SRTPKeyLabel, String)] = [
            (.rtpSalt, "30CBBC08863D8C85D49DB34A9AE1"), (.rtcpSalt, "9581C7AD87B3E530BF3E4454A8B3"),
        ]
        for (label, value) in salts {
            var block = try derivation.salt(label, count: 14)
            let bytes = withUnsafeBytes(of: &block) { Array($0) }
            #expect(bytes == Self.hex(value) + [0, 0], "label \(label)")
        }
    }
}
