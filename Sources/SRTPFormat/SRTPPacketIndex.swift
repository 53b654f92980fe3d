/// The SRTP packet index: the 32-bit rollover counter (ROC) and the 16-bit sequence number as one
/// 48-bit number, `ROC · 2^16 + SEQ` (RFC 3711 §3.3.1).
@_spi(SRTPInternals) public enum SRTPPacketIndex {
    /// The index of a packet with sequence number `sequence`, guessed from the highest index accepted
    /// so far (RFC 3711 §3.3.1 and Appendix A): the ROC of the highest index, or one less or one more
    /// when the sequence number is more than 2^15 behind or ahead of it. While the ROC is 0 a packet
    /// far ahead counts as ROC 0, not −1 (libsrtp does the same).
    @inlinable @inline(__always)
    public static func estimate(sequence: UInt16, highest: UInt64) -> UInt64 {
        let roc = highest >> 16
        let highestSequence = highest & 0xFFFF
        let sequence = UInt64(sequence)
        var guess = roc
        if highestSequence < 0x8000 {
            if sequence > highestSequence, sequence - highestSequence > 0x8000, roc > 0 { guess = roc - 1 }
        } else if highestSequence - 0x8000 > sequence {
            guess = roc + 1
        }
        return guess << 16 | sequence
    }

    /// The rollover counter of `index`, as the HMAC and the GCM IV use it.
    @inlinable @inline(__always)
    public static func rolloverCounter(_ index: UInt64) -> UInt32 {
        UInt32(truncatingIfNeeded: index >> 16)
    }
}
