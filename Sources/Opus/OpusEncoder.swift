internal import COpus

/// Encodes 16-bit PCM into Opus packets; wraps a libopus `OpusEncoder`.
///
/// Ownership: an encoder is a stateful stream (each packet depends on the
/// ones before it) and libopus does no locking, so exactly one owner may use
/// it at a time. The class is deliberately not `Sendable`: keep it inside one
/// actor or task, or hand it over with `sending`/region transfer. That is
/// what the compiler enforces, and what the codec needs.
public final class OpusEncoder {
    /// The largest packet `encode` will produce, in bytes (libopus's recommended ceiling).
    public static let maxPacketSize = 4_000

    /// PCM sample rate in hertz: 8000, 12000, 16000, 24000 or 48000.
    public let sampleRate: Int32
    /// Interleaved channels in the PCM input: 1 or 2.
    public let channels: Int
    /// The coding mode chosen at creation.
    public let application: Application

    let state: OpaquePointer

    /// Creates an encoder.
    ///
    /// - Parameters:
    ///   - sampleRate: PCM input rate: 8000, 12000, 16000, 24000 or 48000 Hz.
    ///   - channels: 1 (mono) or 2 (interleaved stereo).
    ///   - application: `.voip` for speech (the default), `.audio` for music, `.lowDelay` for minimal latency.
    /// - Throws: `OpusError.badArgument` (with a reason) for an unsupported rate or channel count.
    public init(sampleRate: Int32 = 48_000, channels: Int = 1, application: Application = .voip) throws(OpusError) {
        try OpusAudioFormat.check(sampleRate: sampleRate, channels: channels)
        var error: Int32 = OPUS_OK
        guard let state = opus_encoder_create(sampleRate, Int32(channels), application.opusValue, &error),
            error == OPUS_OK
        else {
            throw OpusError(code: error == OPUS_OK ? OPUS_ALLOC_FAIL : error, context: "opus_encoder_create")
        }
        self.state = state
        self.sampleRate = sampleRate
        self.channels = channels
        self.application = application
    }

    deinit {
        opus_encoder_destroy(state)
    }

    /// Samples per channel in `duration` at this encoder's rate, e.g. 960 for 20 ms at 48 kHz.
    ///
    /// Opus codes 2.5, 5, 10, 20, 40, 60, 80, 100 and 120 ms frames; `encode` rejects other sizes.
    public func frameSize(for duration: Duration) -> Int {
        OpusAudioFormat.samples(in: duration, sampleRate: sampleRate)
    }

    /// Encodes one frame of interleaved PCM into a new packet.
    ///
    /// - Parameters:
    ///   - pcm: `frameSize * channels` interleaved samples.
    ///   - frameSize: samples per channel; must be a codable duration (see `frameSize(for:)`).
    /// - Returns: the packet, at most `maxPacketSize` bytes. With DTX on, silence may
    ///   yield 1–2 byte packets that need not be sent.
    public func encode(_ pcm: [Int16], frameSize: Int) throws(OpusError) -> [UInt8] {
        try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.maxPacketSize) { scratch in
            Result { () throws(OpusError) in
                let count = try pcm.withUnsafeBufferPointer { samples throws(OpusError) in
                    try encode(samples, frameSize: frameSize, into: UnsafeMutableRawBufferPointer(scratch))
                }
                return Array(scratch[..<count])
            }
        }.get()
    }

    /// Encodes one frame of interleaved PCM into caller-provided memory.
    ///
    /// - Parameters:
    ///   - pcm: exactly `frameSize * channels` interleaved samples.
    ///   - frameSize: samples per channel; must be a codable duration (see `frameSize(for:)`).
    ///   - buffer: where the packet goes; `maxPacketSize` bytes always suffice.
    /// - Returns: the packet length in bytes.
    /// - Throws: `badArgument` for a wrong sample count or frame size, `bufferTooSmall`, or other libopus errors.
    public func encode(
        _ pcm: UnsafeBufferPointer<Int16>,
        frameSize: Int,
        into buffer: UnsafeMutableRawBufferPointer
    ) throws(OpusError) -> Int {
        guard OpusAudioFormat.isValidFrameSize(frameSize, sampleRate: sampleRate) else {
            throw OpusError(
                code: OPUS_BAD_ARG,
                context:
                    "frame size \(frameSize) samples at \(sampleRate) Hz is not 2.5, 5, 10, 20, 40, 60, 80, 100 or 120 ms"
            )
        }
        guard pcm.count == frameSize * channels, let samples = pcm.baseAddress else {
            throw OpusError(
                code: OPUS_BAD_ARG,
                context:
                    "got \(pcm.count) samples; frame size \(frameSize) x \(channels) channels needs \(frameSize * channels)"
            )
        }
        guard let output = buffer.baseAddress, buffer.count > 0 else {
            throw OpusError(code: OPUS_BUFFER_TOO_SMALL, context: "empty output buffer")
        }
        let capacity = Int32(clamping: buffer.count)
        let written = opus_encode(
            state, samples, Int32(frameSize), output.assumingMemoryBound(to: UInt8.self), capacity)
        return Int(try OpusError.check(written, "opus_encode"))
    }

    /// Samples per channel (at `sampleRate`) by which decoded audio lags the input.
    ///
    /// Skip this many samples of decoder output to line it up with what was encoded.
    public var lookahead: Int {
        var value: Int32 = 0
        _ = copus_encoder_get_lookahead(state, &value)
        return Int(value)
    }

    /// The range coder's final state after the last `encode`; a decoder that
    /// decoded the same packet reports the same value.
    public var finalRange: UInt32 {
        var value: UInt32 = 0
        _ = copus_encoder_get_final_range(state, &value)
        return value
    }

    /// Resets the codec state to freshly initialised, keeping settings.
    /// Use between unrelated streams (e.g. a new talk spurt from a different source).
    public func reset() {
        _ = copus_encoder_reset_state(state)
    }
}
