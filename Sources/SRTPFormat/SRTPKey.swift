/// An SRTP master key and salt: 16 key bytes followed by the salt, 14 bytes for
/// `AES_CM_128_HMAC_SHA1_80` (30 in all, RFC 3711, RFC 4568 §6.1) or 12 for `AEAD_AES_128_GCM`
/// (28 in all, RFC 7714 §12). The length says which ``profile`` the key is for.
///
/// Its base64 text is what SDP carries (`a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:<base64>`) and
/// what ffmpeg takes as `-srtp_out_params` / `-srtp_in_params`. `description` does not reveal the
/// key. Use one key per direction per peer: two senders sharing a key and SSRC reuse keystream.
public struct SRTPKey: Sendable, Equatable, CustomStringConvertible {
    /// Length of master key + salt for the default suite (`AES_CM_128_HMAC_SHA1_80`).
    public static let length = 30
    /// Length of the AES-128 master key.
    public static let masterKeyLength = 16
    /// Length of the master salt for the default suite.
    public static let saltLength = 14

    /// The bytes: master key then salt (28 or 30).
    public let bytes: [UInt8]

    /// A key from its bytes: 30 (`AES_CM_128_HMAC_SHA1_80`) or 28 (`AEAD_AES_128_GCM`); throws
    /// `badKeyLength` for any other length.
    public init(bytes: [UInt8]) throws(SRTPError) {
        guard SRTPProfile.allCases.contains(where: { $0.keyLength == bytes.count }) else {
            throw .badKeyLength(bytes.count)
        }
        self.bytes = bytes
    }

    /// A key from master key (16 bytes) and salt (14 or 12 bytes).
    public init(masterKey: [UInt8], salt: [UInt8]) throws(SRTPError) {
        guard masterKey.count == Self.masterKeyLength,
            SRTPProfile.allCases.contains(where: { $0.saltLength == salt.count })
        else {
            throw .badKeyLength(masterKey.count + salt.count)
        }
        self.bytes = masterKey + salt
    }

    /// A key from its base64 text (as in SDP `inline:` or ffmpeg's `-srtp_out_params`); throws
    /// `badKeyEncoding` unless it is valid base64 of exactly 30 or 28 bytes.
    public init(base64: String) throws(SRTPError) {
        guard let bytes = SRTPBase64.decode(base64),
            SRTPProfile.allCases.contains(where: { $0.keyLength == bytes.count })
        else { throw .badKeyEncoding }
        self.bytes = bytes
    }

    /// A fresh random key for `profile` from `generator`.
    public static func random<G: RandomNumberGenerator>(
        for profile: SRTPProfile = .aesCM128HMACSHA1_80, using generator: inout G
    ) -> SRTPKey {
        var bytes = [UInt8](repeating: 0, count: profile.keyLength)
        for index in bytes.indices { bytes[index] = UInt8.random(in: .min ... .max, using: &generator) }
        return try! SRTPKey(bytes: bytes)
    }

    /// A fresh random key for `profile` from the system's cryptographically secure generator.
    public static func random(for profile: SRTPProfile = .aesCM128HMACSHA1_80) -> SRTPKey {
        var generator = SystemRandomNumberGenerator()
        return random(for: profile, using: &generator)
    }

    /// The profile this key's length fits.
    public var profile: SRTPProfile {
        bytes.count == SRTPProfile.aeadAES128GCM.keyLength ? .aeadAES128GCM : .aesCM128HMACSHA1_80
    }

    /// The 16-byte master key.
    public var masterKey: ArraySlice<UInt8> { bytes[..<Self.masterKeyLength] }

    /// The master salt (14 or 12 bytes).
    public var salt: ArraySlice<UInt8> { bytes[Self.masterKeyLength...] }

    /// The bytes in base64 (40 characters for either length).
    public var base64: String { SRTPBase64.encode(bytes) }

    /// The SDES key parameter: `inline:<base64>` (RFC 4568 §6.1, no lifetime, no MKI).
    public var inlineParameter: String { "inline:" + base64 }

    /// A whole SDP crypto attribute line without line ending:
    /// `a=crypto:<tag> <suite> inline:<base64>`, the suite being this key's ``profile``.
    public func sdpCryptoAttribute(tag: Int = 1) -> String {
        "a=crypto:\(tag) \(profile.name) \(inlineParameter)"
    }

    /// Does not reveal the key.
    public var description: String { "SRTPKey(\(bytes.count) bytes, redacted)" }
}
