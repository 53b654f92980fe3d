/// The channel mapping table of an `OpusHead` with a nonzero mapping family (RFC 7845 §5.1.1).
public struct OpusChannelTable: Sendable, Equatable {
    /// Opus streams in each packet (N). Only 1 is supported here.
    public let streamCount: Int
    /// How many of those streams are stereo (M ≤ N).
    public let coupledCount: Int
    /// For each output channel, the decoded channel it takes (< N + M), or 255 for silence.
    public let mapping: [UInt8]

    /// Creates a table; `OpusHead` validates it.
    public init(streamCount: Int, coupledCount: Int, mapping: [UInt8]) {
        self.streamCount = streamCount
        self.coupledCount = coupledCount
        self.mapping = mapping
    }

    func check(channelCount: Int) throws(OggOpusError) {
        guard streamCount >= 1, coupledCount >= 0, coupledCount <= streamCount, streamCount + coupledCount <= 255 else {
            throw .badHead("channel table with \(streamCount) streams of which \(coupledCount) coupled")
        }
        guard mapping.count == channelCount else {
            throw .badHead("channel table maps \(mapping.count) channels, the header says \(channelCount)")
        }
        let decoded = streamCount + coupledCount
        if let bad = mapping.first(where: { $0 != 255 && Int($0) >= decoded }) {
            throw .badHead("channel table entry \(bad) but only \(decoded) decoded channels")
        }
        guard streamCount == 1 else {
            throw .unsupported("multistream layout (\(streamCount) Opus streams per packet)")
        }
    }
}
