/// The audio layout of a 16-bit PCM WAV stream: little-endian `Int16` samples, interleaved.
public struct WAVFormat: Sendable, Equatable {
    /// Bits per sample: always 16.
    public static let bitsPerSample = 16

    /// Frames per second, e.g. 48000.
    public let sampleRate: Int
    /// Interleaved channels: 1 or 2.
    public let channelCount: Int

    /// Creates a format.
    ///
    /// - Throws: `.invalidArgument` for a rate outside 1...4294967295 / 4 or a channel count
    ///   other than 1 or 2.
    public init(sampleRate: Int, channelCount: Int) throws(WAVError) {
        guard (1...2).contains(channelCount) else {
            throw .invalidArgument("\(channelCount) channels; 1 or 2 are supported")
        }
        guard sampleRate >= 1, sampleRate * channelCount * 2 <= Int(UInt32.max) else {
            throw .invalidArgument("sample rate \(sampleRate) Hz")
        }
        self.sampleRate = sampleRate
        self.channelCount = channelCount
    }

    /// Bytes per frame (one sample for every channel).
    public var bytesPerFrame: Int { channelCount * 2 }
}
