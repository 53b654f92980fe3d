/// Which way an SRTP session works: `inbound` only unprotects, `outbound` only protects. Both
/// `SRTPSession.Direction` and `PortableSRTPSession.Direction` name this type.
public enum SRTPDirection: Sendable, Equatable {
    /// Verifies and decrypts received packets (`unprotect`, `unprotectRTCP`).
    case inbound
    /// Encrypts and authenticates packets to send (`protect`, `protectRTCP`).
    case outbound
}

/// Which SSRCs an SRTP session accepts. Both `SRTPSession.SSRCSelection` and
/// `PortableSRTPSession.SSRCSelection` name this type.
public enum SRTPSSRCSelection: Sendable, Equatable {
    /// Exactly this SSRC; packets with another SSRC fail with `unknownSSRC`. The stream state is
    /// made up front, so no packet allocates. A relay's per-listener outbound session uses the
    /// listener's stable outgoing SSRC here.
    case specific(UInt32)
    /// Any SSRC. The session keeps a rollover counter and replay windows per SSRC, made the first
    /// time it sees each SSRC (inbound: only after the packet authenticates), which allocates, and
    /// kept for the session's life. All SSRCs share the session keys.
    case any
}

/// The checks every session makes before it derives any key, in the same order and with the same
/// errors whichever crypto library it runs on.
@_spi(SRTPInternals) public enum SRTPSessionOptions {
    /// Throws `badReplayWindow` unless `replayWindowSize` is in ``SRTPReplayWindow/allowedSizes``,
    /// then `badKeyLength` unless `key` has `profile`'s length.
    public static func check(key: SRTPKey, profile: SRTPProfile, replayWindowSize: Int) throws(SRTPError) {
        guard SRTPReplayWindow.allowedSizes.contains(replayWindowSize) else {
            throw .badReplayWindow(replayWindowSize)
        }
        guard key.bytes.count == profile.keyLength else { throw .badKeyLength(key.bytes.count) }
    }

    /// The key from raw bytes for a session with `profile`: throws `badKeyLength` unless they fit it.
    public static func key(_ bytes: [UInt8], profile: SRTPProfile) throws(SRTPError) -> SRTPKey {
        guard bytes.count == profile.keyLength else { throw .badKeyLength(bytes.count) }
        return try SRTPKey(bytes: bytes)
    }
}
