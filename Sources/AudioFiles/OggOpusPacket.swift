import OpusPacketFormat

/// One Opus audio packet read from an Ogg Opus stream (headers excluded).
public struct OggOpusPacket: Sendable, Equatable {
    /// The Opus packet (RFC 6716). May be empty only if the file is damaged: treat as lost.
    public var data: [UInt8]
    /// The page's granule position when this packet is the last one completed on its page:
    /// 48 kHz samples decoded from the start of the stream through this packet, the pre-skip
    /// samples included (RFC 7845 §4; playback position = granule − pre-skip; the final page
    /// may be lower than the decoded total, to trim padding). `nil` for other packets.
    public var granulePosition: Int64?
    /// Whether this is the final packet of the stream (last packet of the end-of-stream page).
    public var isEndOfStream: Bool

    /// Creates a packet value.
    public init(data: [UInt8], granulePosition: Int64? = nil, isEndOfStream: Bool = false) {
        self.data = data
        self.granulePosition = granulePosition
        self.isEndOfStream = isEndOfStream
    }

    /// The packet's duration in 48 kHz samples per channel, from its TOC byte; `nil` if the
    /// packet is empty or its framing is impossible (see `sampleCount(of:)`).
    public var sampleCount: Int? { Self.sampleCount(of: data) }

    /// Duration of an Opus packet in 48 kHz samples per channel, read from its TOC byte
    /// (RFC 6716 §3.1) and, for code 3, the frame count byte. Does not validate the rest.
    /// The reading is `OpusFraming.sampleCount(of:)`'s.
    ///
    /// - Returns: `nil` for an empty packet, a code 3 packet without its count byte or with
    ///   zero frames, or a total above 120 ms.
    public static func sampleCount(of packet: some Collection<UInt8>) -> Int? {
        OpusFraming.sampleCount(of: packet)
    }
}
