@_spi(SRTPInternals) import SRTPFormat

/// One SRTP/SRTCP session (RFC 3711, RFC 7714) on swift-crypto: the same packets as the server's
/// `SRTPSession` (OpenSSL's libcrypto), byte for byte, but built only on the `Crypto` and
/// `_CryptoExtras` products, so it builds wherever swift-crypto does (iOS, macOS, Linux). For clients
/// (the kit) that send and receive tens of packets a second: simple before fast, `[UInt8]` in and
/// `[UInt8]` out.
///
/// Profiles, keys, errors, directions, SSRC selection, replay windows and rollover counter tracking
/// are `SRTPSession`'s own (module `SRTPFormat`), so a packet that one session accepts or rejects the
/// other accepts or rejects with the same ``SRTPError``. The session keys are derived once, when the
/// session is made (key derivation rate 0), and kept as `SymmetricKey`s; for AES-CM the HMAC is
/// keyed once and copied per packet. Unlike `SRTPSession`, an outbound session never protects the
/// same packet index twice (there is no `allowRepeatTransmit`).
///
/// Thread safety: a session has mutable state (rollover counter, replay windows) and no lock. Use
/// it from one thread at a time. It is marked `@unchecked Sendable` so it can be handed over. The
/// salts are wiped when the session is deinitialised; swift-crypto wipes the keys.
public final class PortableSRTPSession: @unchecked Sendable {
    /// Which way a session works: `inbound` only unprotects, `outbound` only protects.
    public typealias Direction = SRTPDirection
    /// Which SSRCs a session accepts: one specific SSRC, or any.
    public typealias SSRCSelection = SRTPSSRCSelection

    /// Default replay window (packets), as libsrtp's and `SRTPSession`'s.
    public static let defaultReplayWindowSize = SRTPReplayWindow.defaultSize
    /// Replay window sizes a session accepts.
    public static let replayWindowSizes = SRTPReplayWindow.allowedSizes

    /// The way this session works.
    public let direction: Direction
    /// The SSRCs this session accepts.
    public let ssrc: SSRCSelection
    /// The replay window in packets (SRTP); SRTCP always uses a 128-packet window.
    public let replayWindowSize: Int
    /// The crypto suite.
    public let profile: SRTPProfile

    var rtpKeys: PortableTransformKeys
    var rtcpKeys: PortableTransformKeys
    /// The rollover counters and replay windows, per SSRC.
    var streams: SRTPStreams

    /// Creates a session.
    ///
    /// - Parameters:
    ///   - direction: `inbound` to unprotect, `outbound` to protect.
    ///   - key: master key and salt; its length must fit `profile` (30 or 28 bytes), or this throws
    ///     `badKeyLength`.
    ///   - ssrc: one SSRC, or any.
    ///   - replayWindowSize: SRTP replay window in packets, 64 ..< 32768 (default 128), or this throws
    ///     `badReplayWindow`.
    ///   - profile: the crypto suite (default `AES_CM_128_HMAC_SHA1_80`).
    public init(
        direction: Direction,
        key: SRTPKey,
        ssrc: SSRCSelection,
        replayWindowSize: Int = PortableSRTPSession.defaultReplayWindowSize,
        profile: SRTPProfile = .aesCM128HMACSHA1_80
    ) throws(SRTPError) {
        try SRTPSessionOptions.check(key: key, profile: profile, replayWindowSize: replayWindowSize)
        var derivation = PortableKeyDerivation(key: key)
        defer { derivation.wipe() }
        var rtp = try PortableTransformKeys(profile: profile, derivation: derivation, rtcp: false)
        do {
            rtcpKeys = try PortableTransformKeys(profile: profile, derivation: derivation, rtcp: true)
        } catch {
            rtp.wipe()
            throw error
        }
        rtpKeys = rtp
        self.direction = direction
        self.ssrc = ssrc
        self.replayWindowSize = replayWindowSize
        self.profile = profile
        self.streams = SRTPStreams(selection: ssrc, windowSize: replayWindowSize)
    }

    /// Creates a session from raw key bytes (master key then salt); throws `badKeyLength` unless they
    /// fit `profile`. The other parameters mean what they mean for the ``SRTPKey`` initialiser.
    public convenience init(
        direction: Direction,
        key: [UInt8],
        ssrc: SSRCSelection,
        replayWindowSize: Int = PortableSRTPSession.defaultReplayWindowSize,
        profile: SRTPProfile = .aesCM128HMACSHA1_80
    ) throws(SRTPError) {
        try self.init(
            direction: direction, key: SRTPSessionOptions.key(key, profile: profile), ssrc: ssrc,
            replayWindowSize: replayWindowSize, profile: profile
        )
    }

    deinit {
        rtpKeys.wipe()
        rtcpKeys.wipe()
    }

    /// How many bytes ``protect(_:)`` adds to an RTP packet in this session: the tag (10 or 16).
    public var rtpOverhead: Int { profile.rtpOverhead }

    /// How many bytes ``protectRTCP(_:)`` adds to an RTCP packet in this session: E flag + index and
    /// tag (14 or 20).
    public var rtcpOverhead: Int { profile.rtcpOverhead }
}
