#if os(Linux)
/// The talker's packet that a listener's datagram carries, found by its RTP timestamp (the burst's first packet's
/// plus 960, 20 ms at 48 kHz, per packet after it), and when that packet was sent (the talker's `SendLog` times).
struct SentPacketMatch {
    let index: Int
    let sentAt: UInt64

    /// The match, or nil when `timestamp` is not one of the first `limit` packets sent or the datagram `arrival`ed
    /// before that packet was sent: the receivers count such a datagram unmatched.
    @inline(__always)
    init?(
        timestamp: UInt32, firstTimestamp: UInt32, limit: Int, sendTimes: UnsafeMutablePointer<UInt64>, arrival: UInt64
    ) {
        let delta = timestamp &- firstTimestamp
        let index = Int(delta / 960)
        guard delta % 960 == 0, index < limit else { return nil }
        let sentAt = sendTimes[index]
        guard arrival >= sentAt else { return nil }
        self.index = index
        self.sentAt = sentAt
    }
}
#endif
