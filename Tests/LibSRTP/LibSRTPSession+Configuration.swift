public import SRTP

extension LibSRTPSession {
    /// The same directions as ``SRTPSession``'s.
    public typealias Direction = SRTPSession.Direction
    /// The same SSRC selections as ``SRTPSession``'s.
    public typealias SSRCSelection = SRTPSession.SSRCSelection

    /// Replay window sizes libsrtp accepts.
    public static let replayWindowSizes = 64..<0x8000
}
