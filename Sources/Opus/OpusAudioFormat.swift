/// Checks and arithmetic shared by the encoder and decoder.
enum OpusAudioFormat {
    /// The PCM sample rates libopus encodes from and decodes to.
    static let sampleRates: [Int32] = [8_000, 12_000, 16_000, 24_000, 48_000]

    /// Frame durations Opus can code, in units of 2.5 ms (2.5, 5, 10, 20, 40, 60, 80, 100, 120 ms).
    static let frameSizesIn2_5ms: [Int] = [1, 2, 4, 8, 16, 24, 32, 40, 48]

    /// Throws a `badArgument` error naming the problem unless the rate and channel count are usable.
    static func check(sampleRate: Int32, channels: Int) throws(OpusError) {
        guard sampleRates.contains(sampleRate) else {
            throw OpusError(
                code: OpusError.badArgument.code,
                context: "sample rate \(sampleRate) Hz; must be one of 8000, 12000, 16000, 24000, 48000"
            )
        }
        guard channels == 1 || channels == 2 else {
            throw OpusError(code: OpusError.badArgument.code, context: "\(channels) channels; must be 1 or 2")
        }
    }

    /// Samples per channel in `duration` at `sampleRate`, rounded down; 0 for negative durations.
    static func samples(in duration: Duration, sampleRate: Int32) -> Int {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0, attoseconds >= 0 else { return 0 }
        let nanoseconds = attoseconds / 1_000_000_000
        let whole = seconds.multipliedReportingOverflow(by: Int64(sampleRate))
        guard !whole.overflow else { return Int.max }
        return Int(whole.partialValue + nanoseconds * Int64(sampleRate) / 1_000_000_000)
    }

    /// Whether `frameSize` samples per channel is a duration Opus can code at `sampleRate`.
    static func isValidFrameSize(_ frameSize: Int, sampleRate: Int32) -> Bool {
        let unit = Int(sampleRate) / 400  // 2.5 ms
        return frameSize > 0 && frameSize % unit == 0 && frameSizesIn2_5ms.contains(frameSize / unit)
    }

    /// Samples per channel in 120 ms, the longest packet, at `sampleRate`.
    static func maxFrameSize(sampleRate: Int32) -> Int {
        Int(sampleRate) * 3 / 25
    }
}
