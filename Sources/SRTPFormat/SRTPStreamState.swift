/// What a session remembers about one SSRC: the SRTP index and replay window, the SRTCP replay
/// window (inbound) and the last SRTCP index sent (outbound).
@_spi(SRTPInternals) public struct SRTPStreamState {
    /// SRTP: the highest index gives the rollover counter; both directions use it (outbound to
    /// follow wraps and refuse repeats, inbound against replays).
    public var rtp: SRTPReplayWindow
    /// SRTCP received: a fixed 128-index window, as libsrtp's.
    public var rtcp: SRTPReplayWindow
    /// SRTCP sent: the last index used (the first packet gets 1).
    public var rtcpSent: UInt32 = 0

    /// The SRTCP replay window size, fixed as in libsrtp.
    @inlinable public static var rtcpWindowSize: Int { 128 }

    @inlinable
    public init(windowSize: Int) {
        rtp = SRTPReplayWindow(size: windowSize)
        rtcp = SRTPReplayWindow(size: Self.rtcpWindowSize)
    }
}
