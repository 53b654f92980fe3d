import SRTP
import TestSupport
import Testing

@Suite("SRTP key text")
struct SRTPKeyTests {
    /// The key from RFC 4568 §4's example `a=crypto` line.
    private static let rfc4568 = "PS1uQCVeeCFCanVmcjkpPywjNWhcYD0mXXtxaVBR"

    @Test func decodesAndReencodesRFC4568Example() throws {
        let key = try SRTPKey(base64: Self.rfc4568)
        #expect(key.bytes.count == 30)
        #expect(Array(key.bytes.prefix(4)) == [0x3D, 0x2D, 0x6E, 0x40])  // "PS1u" → 3D 2D 6E, "QCVe" → 40 ...
        #expect(key.base64 == Self.rfc4568)
        #expect(key.inlineParameter == "inline:" + Self.rfc4568)
        #expect(key.sdpCryptoAttribute() == "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:" + Self.rfc4568)
    }

    @Test func knownEncoding() throws {
        let key = try SRTPKey(bytes: Array(0..<30))
        #expect(key.base64 == "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwd")
        #expect(Array(key.masterKey) == Array(0..<16))
        #expect(Array(key.salt) == Array(16..<30))
        #expect(try SRTPKey(masterKey: Array(0..<16), salt: Array(16..<30)) == key)
    }

    @Test func randomKeysRoundTrip() throws {
        var rng = SplitMix64(seed: 0x4B45_59)
        for _ in 0..<500 {
            let key = SRTPKey.random(using: &rng)
            #expect(key.base64.utf8.count == 40)
            #expect(try SRTPKey(base64: key.base64) == key)
        }
        #expect(SRTPKey.random() != SRTPKey.random())
    }

    @Test(arguments: [
        "",
        "PS1uQCVeeCFCanVmcjkpPywjNWhcYD0mXXtxaVB",  // 39 characters
        "PS1uQCVeeCFCanVmcjkpPywjNWhcYD0mXXtxaVBR=",  // 41
        "PS1uQCVeeCFCanVmcjkpPywjNWhcYD0mXXtx",  // 27 bytes
        "PS1uQCVeeCFCanVmcjkpPywjNWhcYD0mXXtxaR==",  // padded, but non-zero bits in the last group
        "PS1uQCVeeCFCanVmcjkpPywjNWhcYD0mXXtxaVBRPS1u",  // 33 bytes
        "PS1uQCVeeCFCanVmcjkpPywjNWhcYD0mXXtxaVB*",  // bad character
        "PS1uQCVeeCFCanVmcjkpPywjNWhcYD0mXXtxaVB ",  // whitespace
        "inline:PS1uQCVeeCFCanVmcjkpPywjNWhcYD0mXXtxaVBR",
        "PS1u=CVeeCFCanVmcjkpPywjNWhcYD0mXXtxaVBR",  // padding inside
    ])
    func rejectsBadText(text: String) {
        #expect(throws: SRTPError.badKeyEncoding) { try SRTPKey(base64: text) }
    }

    @Test func gcmKeyText() throws {
        let key = try SRTPKey(bytes: Array(0..<28))
        #expect(key.profile == .aeadAES128GCM)
        #expect(key.base64 == "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGw==")
        #expect(try SRTPKey(base64: key.base64) == key)
        #expect(Array(key.salt) == Array(16..<28))
        #expect(try SRTPKey(masterKey: Array(0..<16), salt: Array(16..<28)) == key)
        #expect(
            key.sdpCryptoAttribute(tag: 2)
                == "a=crypto:2 AEAD_AES_128_GCM inline:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGw==")
        var rng = SplitMix64(seed: 28)
        #expect(SRTPKey.random(for: .aeadAES128GCM, using: &rng).bytes.count == 28)
    }

    @Test func descriptionDoesNotLeakTheKey() throws {
        let key = try SRTPKey(base64: Self.rfc4568)
        #expect(!key.description.contains(Self.rfc4568))
        #expect(!"\(key)".contains("PS1u"))
    }
}
