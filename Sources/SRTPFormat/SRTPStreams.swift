/// The per-SSRC state of one session and the index bookkeeping each packet goes through, whatever
/// crypto library protects it: which index a packet gets, whether the replay window lets it in, and
/// recording it. One stream up front for ``SRTPSSRCSelection/specific(_:)``; for
/// ``SRTPSSRCSelection/any`` a dictionary that gains an SSRC only when a packet of it is sent or
/// authenticates.
///
/// Inbound, a session calls a `check…` method before it authenticates a packet and the matching
/// `accept…` method after, so a forged packet changes nothing. `@inlinable`: the relay's sessions run
/// it for every packet.
@_spi(SRTPInternals) public struct SRTPStreams {
    /// The SSRCs the session accepts.
    public let selection: SRTPSSRCSelection
    /// The SRTP replay window size of each stream.
    public let windowSize: Int
    /// The stream of a ``SRTPSSRCSelection/specific(_:)`` session.
    @usableFromInline var primary: SRTPStreamState
    /// The streams of an ``SRTPSSRCSelection/any`` session, by SSRC.
    @usableFromInline var others: [UInt32: SRTPStreamState] = [:]

    /// No stream yet seen, SRTP windows of `windowSize` packets.
    @inlinable
    public init(selection: SRTPSSRCSelection, windowSize: Int) {
        self.selection = selection
        self.windowSize = windowSize
        self.primary = SRTPStreamState(windowSize: windowSize)
    }

    /// Outbound SRTP: the index of the packet with `sequence` from `ssrc`, recorded as sent. Fails
    /// with `replayFail` if that index was sent before (unless `allowRepeat`) or is older than the
    /// window, and with `unknownSSRC` for an SSRC the session does not take.
    @inlinable @inline(__always)
    public mutating func nextRTPIndex(ssrc: UInt32, sequence: UInt16, allowRepeat: Bool) throws(SRTPError) -> UInt64 {
        try withStream(ssrc, store: true) { (stream) throws(SRTPError) -> UInt64 in
            let index = SRTPPacketIndex.estimate(sequence: sequence, highest: stream.rtp.highest)
            switch stream.rtp.verdict(for: index) {
            case .fresh: break
            case .duplicate: guard allowRepeat else { throw .replayFail }
            case .tooOld: throw .replayFail
            }
            stream.rtp.accept(index)
            return index
        }
    }

    /// Inbound SRTP: the estimated index of the packet with `sequence` from `ssrc`, if the replay
    /// window lets it in (`replayFail` otherwise). Records nothing: call ``acceptRTPIndex(ssrc:index:)``
    /// once the packet authenticates.
    @inlinable @inline(__always)
    public mutating func checkRTPIndex(ssrc: UInt32, sequence: UInt16) throws(SRTPError) -> UInt64 {
        try withStream(ssrc, store: false) { (stream) throws(SRTPError) -> UInt64 in
            let index = SRTPPacketIndex.estimate(sequence: sequence, highest: stream.rtp.highest)
            guard stream.rtp.verdict(for: index) == .fresh else { throw .replayFail }
            return index
        }
    }

    /// Inbound SRTP: records the index of a packet that authenticated (and makes its stream in an
    /// `any` session).
    @inlinable @inline(__always)
    public mutating func acceptRTPIndex(ssrc: UInt32, index: UInt64) throws(SRTPError) {
        try withStream(ssrc, store: true) { (stream) throws(SRTPError) in stream.rtp.accept(index) }
    }

    /// Outbound SRTCP: the next index for `ssrc` (the first is 1); `indexExhausted` after 2^31 − 1.
    @inlinable @inline(__always)
    public mutating func nextRTCPIndex(ssrc: UInt32) throws(SRTPError) -> UInt32 {
        try withStream(ssrc, store: true) { (stream) throws(SRTPError) -> UInt32 in
            guard stream.rtcpSent < 0x7FFF_FFFF else { throw .indexExhausted }
            stream.rtcpSent += 1
            return stream.rtcpSent
        }
    }

    /// Inbound SRTCP: throws `replayFail` unless the 128-packet window lets `index` in. Records nothing.
    @inlinable @inline(__always)
    public mutating func checkRTCPIndex(ssrc: UInt32, index: UInt32) throws(SRTPError) {
        try withStream(ssrc, store: false) { (stream) throws(SRTPError) in
            guard stream.rtcp.verdict(for: UInt64(index)) == .fresh else { throw .replayFail }
        }
    }

    /// Inbound SRTCP: records the index of a packet that authenticated.
    @inlinable @inline(__always)
    public mutating func acceptRTCPIndex(ssrc: UInt32, index: UInt32) throws(SRTPError) {
        try withStream(ssrc, store: true) { (stream) throws(SRTPError) in stream.rtcp.accept(UInt64(index)) }
    }

    /// Checks `ssrc` against the selection and passes its stream state to `body`: the stored one, or
    /// for a new SSRC in an `any` session a fresh state that is stored only if `store` is true (so an
    /// unauthenticated packet leaves nothing behind).
    @inlinable @inline(__always)
    mutating func withStream<Result>(
        _ ssrc: UInt32, store: Bool, _ body: (inout SRTPStreamState) throws(SRTPError) -> Result
    ) throws(SRTPError) -> Result {
        switch selection {
        case let .specific(expected):
            guard ssrc == expected else { throw .unknownSSRC }
            return try body(&primary)
        case .any:
            if others.index(forKey: ssrc) != nil { return try body(&others[ssrc]!) }
            var fresh = SRTPStreamState(windowSize: windowSize)
            let result = try body(&fresh)
            if store { others[ssrc] = fresh }
            return result
        }
    }
}
