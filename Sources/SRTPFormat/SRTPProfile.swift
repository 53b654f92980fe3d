/// An SRTP protection profile (crypto suite): how packets are encrypted and authenticated.
///
/// The lengths are `@inlinable`: the sessions read them for every packet.
public enum SRTPProfile: Sendable, Equatable, CaseIterable, CustomStringConvertible {
    /// `AES_CM_128_HMAC_SHA1_80` (RFC 3711, RFC 4568): AES-128 in counter mode, HMAC-SHA1 tag
    /// truncated to 80 bits; master key 16 bytes + master salt 14 bytes. The default suite, and what
    /// ffmpeg speaks.
    case aesCM128HMACSHA1_80
    /// `AEAD_AES_128_GCM` (RFC 7714): AES-128-GCM with a 16-byte tag; master key 16 bytes + master
    /// salt 12 bytes.
    case aeadAES128GCM

    /// The suite's name as SDP (RFC 4568) and ffmpeg spell it.
    public var name: String {
        switch self {
        case .aesCM128HMACSHA1_80: "AES_CM_128_HMAC_SHA1_80"
        case .aeadAES128GCM: "AEAD_AES_128_GCM"
        }
    }

    /// The profile of this name (as in SDP), or nil if it is not one of these.
    public init?(name: String) {
        guard let profile = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = profile
    }

    /// Length of the AES master key: 16.
    @inlinable
    public var masterKeyLength: Int { 16 }

    /// Length of the master salt: 14 (AES-CM) or 12 (GCM).
    @inlinable
    public var saltLength: Int {
        switch self {
        case .aesCM128HMACSHA1_80: 14
        case .aeadAES128GCM: 12
        }
    }

    /// Length of master key + salt: 30 (AES-CM) or 28 (GCM).
    @inlinable
    public var keyLength: Int { masterKeyLength + saltLength }

    /// Length of the authentication tag: 10 (HMAC-SHA1-80) or 16 (GCM).
    @inlinable
    public var tagLength: Int {
        switch self {
        case .aesCM128HMACSHA1_80: 10
        case .aeadAES128GCM: 16
        }
    }

    /// Bytes `protect` adds to an RTP packet: the tag.
    @inlinable
    public var rtpOverhead: Int { tagLength }

    /// Bytes `protectRTCP` adds to an RTCP packet: the tag plus the 4-byte E flag and SRTCP index.
    @inlinable
    public var rtcpOverhead: Int { tagLength + 4 }

    public var description: String { name }
}
