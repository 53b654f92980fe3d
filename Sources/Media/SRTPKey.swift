/// An SRTP master key and salt for `AES_CM_128_HMAC_SHA1_80`: 16 key bytes followed by 14 salt
/// bytes, 30 in all (RFC 3711, RFC 4568 §6.1).
///
/// Its base64 text is what SDP carries (`a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:<base64>`) and
/// what ffmpeg takes as `-srtp_out_params` / `-srtp_in_params`. `description` does not reveal the
/// key. Use one key per direction per peer: two senders sharing a key and SSRC reuse keystream.
public struct SRTPKey: Sendable, Equatable, CustomStringConvertible {
    /// Length of master key + salt.
    public static let length = 30
    /// Length of the AES-128 master key.
    public static let masterKeyLength = 16
    /// Length of the master salt.
    public static let saltLength = 14

    /// The 30 bytes: master key then salt.
    public let bytes: [UInt8]

    /// A key from its 30 bytes; throws `badKeyLength` for any other length.
    public init(bytes: [UInt8]) throws(SRTPError) {
        guard bytes.count == Self.length else { throw .badKeyLength(bytes.count) }
        self.bytes = bytes
    }

    /// A key from master key (16 bytes) and salt (14 bytes).
    public init(masterKey: [UInt8], salt: [UInt8]) throws(SRTPError) {
        guard masterKey.count == Self.masterKeyLength, salt.count == Self.saltLength else {
            throw .badKeyLength(masterKey.count + salt.count)
        }
        self.bytes = masterKey + salt
    }

    /// A key from its base64 text (40 characters, as in SDP `inline:` or ffmpeg's
    /// `-srtp_out_params`); throws `badKeyEncoding` unless it is valid base64 of exactly 30 bytes.
    public init(base64: String) throws(SRTPError) {
        guard let bytes = SRTPBase64.decode(base64), bytes.count == Self.length else { throw .badKeyEncoding }
        self.bytes = bytes
    }

    /// A fresh random key from `generator` (by default the system's cryptographically secure one).
    public static func random<G: RandomNumberGenerator>(using generator: inout G) -> SRTPKey {
        var bytes = [UInt8](repeating: 0, count: length)
        for index in bytes.indices { bytes[index] = UInt8.random(in: .min ... .max, using: &generator) }
        return try! SRTPKey(bytes: bytes)
    }

    /// A fresh random key from the system's cryptographically secure generator.
    public static func random() -> SRTPKey {
        var generator = SystemRandomNumberGenerator()
        return random(using: &generator)
    }

    /// The 16-byte master key.
    public var masterKey: ArraySlice<UInt8> { bytes[..<Self.masterKeyLength] }

    /// The 14-byte master salt.
    public var salt: ArraySlice<UInt8> { bytes[Self.masterKeyLength...] }

    /// The 30 bytes in base64 (40 characters, no padding needed).
    public var base64: String { SRTPBase64.encode(bytes) }

    /// The SDES key parameter: `inline:<base64>` (RFC 4568 §6.1, no lifetime, no MKI).
    public var inlineParameter: String { "inline:" + base64 }

    /// A whole SDP crypto attribute line without line ending:
    /// `a=crypto:<tag> AES_CM_128_HMAC_SHA1_80 inline:<base64>`.
    public func sdpCryptoAttribute(tag: Int = 1) -> String {
        "a=crypto:\(tag) \(SRTPSession.suiteName) \(inlineParameter)"
    }

    /// Does not reveal the key.
    public var description: String { "SRTPKey(30 bytes, redacted)" }
}
