/// What an Opus packet's first bytes say about its length (RFC 6716 §3.1–3.2), read in Swift without libopus,
/// and the 120 ms limit every packet is held to.
///
/// The one place these rules are written: `Opus` (`OpusPacket.validate`, which has libopus check the rest of
/// the framing) and `AudioFiles` (Ogg Opus durations and granule positions) both read them from here. Nothing
/// here validates a packet beyond its first two bytes.
///
/// Does not allocate: suitable for the per-packet path.
public enum OpusFraming {
    /// The longest packet Opus allows: 120 ms, in samples per channel at 48 kHz.
    public static let maxSamples = 5_760

    /// Samples per channel in each frame, at 48 kHz, from the configuration number in the top 5 bits of the
    /// TOC byte (RFC 6716 Table 2): SILK 10, 20, 40, 60 ms; Hybrid 10, 20 ms; CELT 2.5, 5, 10, 20 ms.
    /// Every TOC byte has one: 120 (2.5 ms) to 2880 (60 ms).
    @inlinable
    public static func samplesPerFrame(toc: UInt8) -> Int {
        let configuration = Int(toc >> 3)
        switch configuration {
        case 0..<12:  // SILK: 10, 20, 40, 60 ms
            switch configuration % 4 {
            case 0: return 480
            case 1: return 960
            case 2: return 1_920
            default: return 2_880
            }
        case 12..<16:  // Hybrid: 10, 20 ms
            return 480 << (configuration % 2)
        default:  // CELT: 2.5, 5, 10, 20 ms
            return 120 << (configuration % 4)
        }
    }

    /// The number of frames the packet says it holds: 1 for code 0, 2 for codes 1 and 2, and for code 3 the
    /// count in the low 6 bits of the second byte (RFC 6716 §3.2.5), which may be 0 (a malformed packet).
    ///
    /// - Returns: `nil` for an empty packet or a code 3 packet without its count byte.
    @inlinable
    public static func frameCount(of packet: some Collection<UInt8>) -> Int? {
        guard let toc = packet.first else { return nil }
        switch toc & 0x3 {
        case 0: return 1
        case 1, 2: return 2
        default:
            guard let count = packet.dropFirst().first else { return nil }
            return Int(count & 0x3F)
        }
    }

    /// Duration of an Opus packet in 48 kHz samples per channel, read from its TOC byte and, for code 3, the
    /// frame count byte. Does not validate the rest.
    ///
    /// - Returns: `nil` for an empty packet, a code 3 packet without its count byte or with zero frames, or a
    ///   total above 120 ms (`maxSamples`).
    @inlinable
    public static func sampleCount(of packet: some Collection<UInt8>) -> Int? {
        guard let toc = packet.first, let frames = frameCount(of: packet) else { return nil }
        let total = frames * samplesPerFrame(toc: toc)
        guard frames > 0, total <= maxSamples else { return nil }
        return total
    }
}
