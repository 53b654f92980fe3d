extension OggOpusPacket {
    /// Longest legal Opus packet: 120 ms at 48 kHz.
    public static let maxSampleCount = 5_760

    /// Duration of an Opus packet in 48 kHz samples per channel, read from its TOC byte
    /// (RFC 6716 §3.1) and, for code 3, the frame count byte. Does not validate the rest.
    ///
    /// - Returns: `nil` for an empty packet, a code 3 packet without its count byte or with
    ///   zero frames, or a total above 120 ms.
    public static func sampleCount(of packet: some Collection<UInt8>) -> Int? {
        guard let toc = packet.first else { return nil }
        let config = Int(toc >> 3)
        let frameSize: Int
        switch config {
        case 0..<12: frameSize = [480, 960, 1_920, 2_880][config % 4]  // SILK: 10, 20, 40, 60 ms
        case 12..<16: frameSize = [480, 960][config % 2]  // Hybrid: 10, 20 ms
        default: frameSize = [120, 240, 480, 960][config % 4]  // CELT: 2.5, 5, 10, 20 ms
        }
        let frames: Int
        switch toc & 0x3 {
        case 0: frames = 1
        case 1, 2: frames = 2
        default:
            guard let count = packet.dropFirst().first else { return nil }
            frames = Int(count & 0x3F)
        }
        let total = frames * frameSize
        guard frames > 0, total <= maxSampleCount else { return nil }
        return total
    }
}
