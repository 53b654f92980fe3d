/// What `OpusPacket.validate` learned about a well-formed Opus packet.
///
/// Sample counts are at 48 kHz, the rate Opus timestamps are defined in,
/// whatever rate the packet was encoded or will be decoded at.
public struct OpusPacketInfo: Sendable, Hashable {
    /// Number of Opus frames in the packet (1...48).
    public let frameCount: Int
    /// Samples per channel in each frame, at 48 kHz (120 for 2.5 ms ... 2880 for 60 ms).
    public let samplesPerFrame: Int
    /// Channels signalled by the TOC byte: 1 or 2.
    public let channels: Int
    /// Coded audio bandwidth signalled by the TOC byte.
    public let bandwidth: OpusBandwidth

    /// Creates packet info; `OpusPacket.validate` is the usual source.
    public init(frameCount: Int, samplesPerFrame: Int, channels: Int, bandwidth: OpusBandwidth) {
        self.frameCount = frameCount
        self.samplesPerFrame = samplesPerFrame
        self.channels = channels
        self.bandwidth = bandwidth
    }

    /// Samples per channel in the whole packet, at 48 kHz (at most 5760 = 120 ms).
    public var totalSamples: Int { frameCount * samplesPerFrame }

    /// Playback duration of the packet.
    ///
    /// Exact: every Opus duration is a multiple of 2.5 ms.
    public var duration: Duration {
        // 48 samples per millisecond; totals are multiples of 120 (2.5 ms), so this is exact.
        .microseconds(totalSamples * 1_000 / 48)
    }

    /// Whether the packet is coded as stereo.
    public var isStereo: Bool { channels == 2 }
}
