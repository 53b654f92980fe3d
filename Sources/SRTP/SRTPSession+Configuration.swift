@_spi(SRTPInternals) import SRTPFormat

extension SRTPSession {
    /// Which way a session works: `inbound` only unprotects, `outbound` only protects.
    public typealias Direction = SRTPDirection

    /// Which SSRCs a session accepts: one specific SSRC, or any.
    public typealias SSRCSelection = SRTPSSRCSelection

    /// The default crypto suite, as SDP and ffmpeg name it (`AES_CM_128_HMAC_SHA1_80`).
    public static let suiteName = SRTPProfile.aesCM128HMACSHA1_80.name

    /// Default replay window (packets), as libsrtp's.
    public static let defaultReplayWindowSize = SRTPReplayWindow.defaultSize

    /// Replay window sizes a session accepts.
    public static let replayWindowSizes = SRTPReplayWindow.allowedSizes

    /// How many bytes `protect` adds to an RTP packet with the default suite: the 80-bit tag.
    public static let rtpOverhead = SRTPProfile.aesCM128HMACSHA1_80.rtpOverhead

    /// How many bytes `protectRTCP` adds to an RTCP packet with the default suite: the E flag +
    /// 31-bit SRTCP index, then the 80-bit tag.
    public static let rtcpOverhead = SRTPProfile.aesCM128HMACSHA1_80.rtcpOverhead

    /// Tail room after an RTP packet that is enough for `protect` with every profile (16: the GCM
    /// tag). A session itself needs only its ``rtpOverhead``.
    public static let rtpTrailerCapacity = SRTPProfile.allCases.map(\.rtpOverhead).max()!

    /// Tail room after an RTCP packet that is enough for `protectRTCP` with every profile (20).
    public static let rtcpTrailerCapacity = SRTPProfile.allCases.map(\.rtcpOverhead).max()!

    /// This session's suite name, as SDP and ffmpeg spell it.
    public var suiteName: String { profile.name }

    /// How many bytes `protect` adds to an RTP packet in this session: the tag.
    public var rtpOverhead: Int { profile.rtpOverhead }

    /// How many bytes `protectRTCP` adds to an RTCP packet in this session: E flag + index and tag.
    public var rtcpOverhead: Int { profile.rtcpOverhead }
}
