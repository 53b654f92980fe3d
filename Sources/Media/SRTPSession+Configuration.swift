extension SRTPSession {
    /// Which way a session works: `inbound` only unprotects, `outbound` only protects.
    public enum Direction: Sendable, Equatable {
        /// Verifies and decrypts received packets (`unprotect`, `unprotectRTCP`).
        case inbound
        /// Encrypts and authenticates packets to send (`protect`, `protectRTCP`).
        case outbound
    }

    /// Which SSRCs a session accepts.
    public enum SSRCSelection: Sendable, Equatable {
        /// Exactly this SSRC; packets with another SSRC fail with `unknownSSRC`. The stream
        /// context is made up front, so no packet allocates. A relay's per-listener outbound
        /// session uses the listener's stable outgoing SSRC here.
        case specific(UInt32)
        /// Any SSRC (libsrtp's `ssrc_any_inbound` / `ssrc_any_outbound`). libsrtp clones a stream
        /// context from a template the first time it sees each SSRC (inbound: only after the
        /// packet authenticates), which allocates, and keeps it for the session's life.
        case any
    }

    /// The crypto suite every session uses, as SDP and ffmpeg name it.
    public static let suiteName = "AES_CM_128_HMAC_SHA1_80"

    /// Default replay window (packets), libsrtp's default.
    public static let defaultReplayWindowSize = 128

    /// Replay window sizes libsrtp accepts.
    public static let replayWindowSizes = 64..<0x8000

    /// How many bytes `protect` adds to an RTP packet: the 80-bit authentication tag.
    public static let rtpOverhead = 10

    /// How many bytes `protectRTCP` adds to an RTCP packet: the E-flag + 31-bit SRTCP index, then
    /// the 80-bit tag.
    public static let rtcpOverhead = 14
}
