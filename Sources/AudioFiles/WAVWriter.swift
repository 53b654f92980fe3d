/// Produces a 16-bit PCM WAV stream: a 44-byte header (`RIFF`, `fmt ` format 1, `data`), then
/// little-endian interleaved samples.
///
/// When the output can seek, write `header(dataByteCount: nil)` first and overwrite it with
/// `finalHeader` at the end (`WAVFileWriter` does). When it cannot (a pipe), the first header
/// stays: its sizes are 0xFFFFFFFF, which `WAVReader`, sox, ffmpeg and aplay read as "until the
/// end of the input".
public struct WAVWriter: Sendable {
    /// Size of the header this writer produces.
    public static let headerSize = 44

    /// The sample format.
    public let format: WAVFormat
    /// Audio bytes encoded so far.
    public private(set) var dataByteCount = 0

    /// Creates a writer for `format`.
    public init(format: WAVFormat) {
        self.format = format
    }

    /// A header for `format`; `dataByteCount: nil` (or a size too big for 32 bits) writes
    /// 0xFFFFFFFF for both the RIFF and the data size.
    public static func header(format: WAVFormat, dataByteCount: Int?) -> [UInt8] {
        var dataSize = UInt32.max
        var riffSize = UInt32.max
        if let dataByteCount, dataByteCount >= 0, dataByteCount <= Int(UInt32.max) - 36 {
            dataSize = UInt32(dataByteCount)
            riffSize = dataSize + 36
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(headerSize)
        bytes += Array("RIFF".utf8)
        LittleEndianBytes.append(riffSize, to: &bytes)
        bytes += Array("WAVEfmt ".utf8)
        LittleEndianBytes.append(UInt32(16), to: &bytes)
        LittleEndianBytes.append(UInt16(1), to: &bytes)  // WAVE_FORMAT_PCM
        LittleEndianBytes.append(UInt16(format.channelCount), to: &bytes)
        LittleEndianBytes.append(UInt32(format.sampleRate), to: &bytes)
        LittleEndianBytes.append(UInt32(format.sampleRate * format.bytesPerFrame), to: &bytes)
        LittleEndianBytes.append(UInt16(format.bytesPerFrame), to: &bytes)
        LittleEndianBytes.append(UInt16(WAVFormat.bitsPerSample), to: &bytes)
        bytes += Array("data".utf8)
        LittleEndianBytes.append(dataSize, to: &bytes)
        return bytes
    }

    /// The header for a stream whose size is not known yet (sizes 0xFFFFFFFF).
    public var streamingHeader: [UInt8] { Self.header(format: format, dataByteCount: nil) }

    /// The header with the sizes of everything encoded so far.
    public var finalHeader: [UInt8] { Self.header(format: format, dataByteCount: dataByteCount) }

    /// Encodes interleaved samples and counts them.
    ///
    /// - Throws: `.invalidArgument` if the count is not a whole number of frames.
    public mutating func encode(_ samples: some Collection<Int16>) throws(WAVError) -> [UInt8] {
        guard samples.count % format.channelCount == 0 else {
            throw .invalidArgument(
                "\(samples.count) samples is not a whole number of \(format.channelCount)-channel frames")
        }
        let bytes = RawPCM.bytes(samples)
        dataByteCount += bytes.count
        return bytes
    }

    /// A complete WAV file in memory.
    public static func file(format: WAVFormat, samples: some Collection<Int16>) throws(WAVError) -> [UInt8] {
        var writer = WAVWriter(format: format)
        let data = try writer.encode(samples)
        return writer.finalHeader + data
    }
}
