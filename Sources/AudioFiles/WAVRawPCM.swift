/// Raw PCM: 16-bit signed little-endian samples, interleaved, no header (what `arecord -t raw
/// -f S16_LE` and `ffmpeg -f s16le` use).
public enum RawPCM {
    /// The samples as little-endian bytes.
    public static func bytes(_ samples: some Collection<Int16>) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(samples.count * 2)
        for sample in samples {
            let bits = UInt16(bitPattern: sample)
            bytes.append(UInt8(truncatingIfNeeded: bits))
            bytes.append(UInt8(truncatingIfNeeded: bits >> 8))
        }
        return bytes
    }

    /// Samples from little-endian bytes; an odd final byte is ignored.
    public static func samples(_ bytes: some Collection<UInt8>) -> [Int16] {
        var samples: [Int16] = []
        samples.reserveCapacity(bytes.count / 2)
        var iterator = bytes.makeIterator()
        while let low = iterator.next(), let high = iterator.next() {
            samples.append(Int16(bitPattern: UInt16(low) | UInt16(high) << 8))
        }
        return samples
    }
}
