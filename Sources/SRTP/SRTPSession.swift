@_spi(SRTPInternals) import SRTPFormat

/// One SRTP/SRTCP session (RFC 3711, RFC 7714) over OpenSSL's libcrypto: one master key, one
/// ``SRTPProfile`` for both SRTP and SRTCP, replay protection, rollover counter tracking.
///
/// A session works one way (``Direction``). Packets are processed in place in the caller's buffer;
/// `protect`/`unprotect` do not allocate (except that an ``SSRCSelection/any`` session allocates a
/// little state the first time it sees an SSRC). The session keys are derived once, when the session
/// is made (key derivation rate 0): the AES contexts are keyed then and each packet only sets its IV;
/// for AES-CM the HMAC's inner and outer SHA-1 states are precomputed and copied per packet.
///
/// For a relay: make one outbound session per listener, keyed with that listener's key, for the
/// listener's stable outgoing SSRC (``SSRCSelection/specific(_:)``), and protect the munged packets
/// (continuous sequence numbers, so the rollover counter follows); make one inbound session per
/// speaker connection with that client's key. The sending side is checked too: protecting two
/// packets with the same sequence number in one session fails with `replayFail` unless
/// `allowRepeatTransmit`.
///
/// Thread safety: a session has mutable state (rollover counter, replay windows) and no lock. Use
/// it from one thread (one event loop) at a time. It is marked `@unchecked Sendable` so it can be
/// handed to that event loop. Key material is wiped when the session is deinitialised.
public final class SRTPSession: @unchecked Sendable {
    /// The way this session works.
    public let direction: Direction
    /// The SSRCs this session accepts.
    public let ssrc: SSRCSelection
    /// The replay window in packets (SRTP); SRTCP always uses a 128-packet window.
    public let replayWindowSize: Int
    /// The crypto suite.
    public let profile: SRTPProfile
    /// Outbound: whether protecting an index again is allowed.
    public let allowRepeatTransmit: Bool

    let rtpKeys: SRTPTransformKeys
    let rtcpKeys: SRTPTransformKeys

    /// The rollover counters and replay windows, per SSRC.
    var streams: SRTPStreams

    /// Creates a session.
    ///
    /// - Parameters:
    ///   - direction: `inbound` to unprotect, `outbound` to protect.
    ///   - key: master key and salt; its length must fit `profile` (30 or 28 bytes), or this throws
    ///     `badKeyLength`.
    ///   - ssrc: one SSRC, or any.
    ///   - replayWindowSize: SRTP replay window in packets, 64 ..< 32768 (default 128).
    ///   - allowRepeatTransmit: outbound only: allow protecting the same sequence number again
    ///     (retransmissions; the payload must be identical or keystream is reused).
    ///   - profile: the crypto suite (default `AES_CM_128_HMAC_SHA1_80`).
    public init(
        direction: Direction,
        key: SRTPKey,
        ssrc: SSRCSelection,
        replayWindowSize: Int = SRTPSession.defaultReplayWindowSize,
        allowRepeatTransmit: Bool = false,
        profile: SRTPProfile = .aesCM128HMACSHA1_80
    ) throws(SRTPError) {
        try SRTPSessionOptions.check(key: key, profile: profile, replayWindowSize: replayWindowSize)
        var derivation = try SRTPKeyDerivation(masterKey: key.masterKey, masterSalt: key.salt)
        defer { derivation.release() }
        let encrypt = direction == .outbound
        rtpKeys = try SRTPTransformKeys(profile: profile, derivation: derivation, rtcp: false, encrypt: encrypt)
        do {
            rtcpKeys = try SRTPTransformKeys(profile: profile, derivation: derivation, rtcp: true, encrypt: encrypt)
        } catch {
            rtpKeys.release()
            throw error
        }
        self.direction = direction
        self.ssrc = ssrc
        self.replayWindowSize = replayWindowSize
        self.allowRepeatTransmit = allowRepeatTransmit
        self.profile = profile
        self.streams = SRTPStreams(selection: ssrc, windowSize: replayWindowSize)
    }

    /// Creates a session from raw key bytes; throws `badKeyLength` unless they fit `profile`.
    public convenience init(
        direction: Direction,
        key: [UInt8],
        ssrc: SSRCSelection,
        replayWindowSize: Int = SRTPSession.defaultReplayWindowSize,
        allowRepeatTransmit: Bool = false,
        profile: SRTPProfile = .aesCM128HMACSHA1_80
    ) throws(SRTPError) {
        try self.init(
            direction: direction, key: SRTPSessionOptions.key(key, profile: profile), ssrc: ssrc,
            replayWindowSize: replayWindowSize, allowRepeatTransmit: allowRepeatTransmit, profile: profile
        )
    }

    deinit {
        rtpKeys.release()
        rtcpKeys.release()
    }

    /// Throws unless `length` bytes plus `overhead` fit in `capacity` (and in an `Int32`, as OpenSSL needs).
    static func checkCapacity(length: Int, capacity: Int, overhead: Int) throws(SRTPError) {
        guard length >= 0, length <= Int(Int32.max) - overhead else { throw .badParam }
        guard capacity >= length + overhead else {
            throw .insufficientCapacity(needed: length + overhead, available: capacity)
        }
    }
}
