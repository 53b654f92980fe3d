internal import COpus

/// Decodes Opus packets into 16-bit PCM; wraps a libopus `OpusDecoder`.
///
/// Ownership: like `OpusEncoder`, a decoder is a stateful stream and libopus
/// does no locking, so exactly one owner may use it at a time. The class is
/// deliberately not `Sendable`: keep it inside one actor or task, or hand it
/// over with `sending`/region transfer.
public final class OpusDecoder {
    /// PCM output rate in hertz: 8000, 12000, 16000, 24000 or 48000.
    public let sampleRate: Int32
    /// Interleaved channels in the PCM output: 1 or 2 (either kind of packet decodes to either).
    public let channels: Int

    private let state: OpaquePointer

    /// Creates a decoder.
    ///
    /// - Parameters:
    ///   - sampleRate: PCM output rate: 8000, 12000, 16000, 24000 or 48000 Hz.
    ///   - channels: 1 (mono) or 2 (interleaved stereo).
    /// - Throws: `OpusError.badArgument` (with a reason) for an unsupported rate or channel count.
    public init(sampleRate: Int32 = 48_000, channels: Int = 1) throws(OpusError) {
        try OpusAudioFormat.check(sampleRate: sampleRate, channels: channels)
        var error: Int32 = OPUS_OK
        guard let state = opus_decoder_create(sampleRate, Int32(channels), &error), error == OPUS_OK else {
            throw OpusError(code: error == OPUS_OK ? OPUS_ALLOC_FAIL : error, context: "opus_decoder_create")
        }
        self.state = state
        self.sampleRate = sampleRate
        self.channels = channels
    }

    deinit {
        opus_decoder_destroy(state)
    }

    /// The most samples per channel one packet can decode to: 120 ms (5760 at 48 kHz).
    public var maxFrameSize: Int {
        OpusAudioFormat.maxFrameSize(sampleRate: sampleRate)
    }

    /// Decodes one packet.
    ///
    /// - Returns: interleaved samples, `channels` per sample instant; the packet's
    ///   duration at `sampleRate` (at most `maxFrameSize` per channel).
    /// - Throws: `invalidPacket` for an empty or corrupt packet. An empty packet is
    ///   an error here, not a loss: libopus would silently conceal 120 ms for it.
    ///   Use `decodeLoss(samples:)` for lost packets.
    public func decode(_ packet: [UInt8]) throws(OpusError) -> [Int16] {
        try packet.withUnsafeBytes { bytes in
            Result { () throws(OpusError) in
                let samples = try packetSamples(bytes)
                return try decodeToArray(samples: samples) { pcm throws(OpusError) in
                    try self.decode(bytes, into: pcm)
                }
            }
        }.get()
    }

    /// Decodes one packet into caller-provided memory.
    ///
    /// - Parameters:
    ///   - packet: one Opus packet (not empty).
    ///   - pcm: room for the packet's duration times `channels`; `maxFrameSize * channels` always suffices.
    /// - Returns: samples per channel written.
    public func decode(
        _ packet: UnsafeRawBufferPointer, into pcm: UnsafeMutableBufferPointer<Int16>
    ) throws(OpusError) -> Int {
        guard let data = packet.baseAddress, packet.count > 0 else {
            throw OpusError(
                code: OPUS_INVALID_PACKET, context: "empty packet; use decodeLoss(samples:) for a lost packet")
        }
        guard packet.count <= Int(Int32.max) else {
            throw OpusError(code: OPUS_INVALID_PACKET, context: "\(packet.count) byte packet")
        }
        guard let output = pcm.baseAddress else {
            throw OpusError(code: OPUS_BUFFER_TOO_SMALL, context: "empty output buffer")
        }
        let frameSize = Int32(min(pcm.count / channels, maxFrameSize))
        let decoded = opus_decode(
            state, data.assumingMemoryBound(to: UInt8.self), Int32(packet.count), output, frameSize, 0)
        return Int(try OpusError.check(decoded, "opus_decode"))
    }

    /// Packet loss concealment: synthesises `samples` per channel to stand in for lost audio.
    ///
    /// - Parameter samples: samples per channel to fill, normally the lost packet's
    ///   duration (`lastPacketDuration` is a good guess); a multiple of 2.5 ms up to 120 ms.
    /// - Returns: `samples * channels` interleaved samples.
    public func decodeLoss(samples: Int) throws(OpusError) -> [Int16] {
        try checkConcealmentSize(samples)
        return try decodeToArray(samples: samples) { pcm throws(OpusError) in
            let decoded = opus_decode(self.state, nil, 0, pcm.baseAddress!, Int32(samples), 0)
            return Int(try OpusError.check(decoded, "packet loss concealment"))
        }
    }

    /// Recovers a lost packet from the forward error correction data in the packet after it.
    ///
    /// Call with the packet that followed the gap, then `decode` that same packet normally.
    /// If it carries no FEC data, this falls back to concealment.
    ///
    /// - Parameters:
    ///   - packet: the packet received after the lost one.
    ///   - samples: the lost packet's duration per channel; a multiple of 2.5 ms up to 120 ms.
    public func decodeFEC(_ packet: [UInt8], samples: Int) throws(OpusError) -> [Int16] {
        try checkConcealmentSize(samples)
        guard !packet.isEmpty else {
            throw OpusError(code: OPUS_INVALID_PACKET, context: "empty packet; use decodeLoss(samples:)")
        }
        return try packet.withUnsafeBufferPointer { data in
            Result { () throws(OpusError) in
                try decodeToArray(samples: samples) { pcm throws(OpusError) in
                    let decoded = opus_decode(
                        self.state, data.baseAddress, Int32(data.count), pcm.baseAddress!, Int32(samples), 1)
                    return Int(try OpusError.check(decoded, "FEC decode"))
                }
            }
        }.get()
    }

    /// Samples per channel (at `sampleRate`) produced by the last decode or concealment call.
    public var lastPacketDuration: Int {
        var value: Int32 = 0
        _ = copus_decoder_get_last_packet_duration(state, &value)
        return Int(value)
    }

    /// The range coder's final state after the last decode; equals the encoder's
    /// `finalRange` for the same packet when nothing was corrupted.
    public var finalRange: UInt32 {
        var value: UInt32 = 0
        _ = copus_decoder_get_final_range(state, &value)
        return value
    }

    /// Resets the codec state to freshly initialised, e.g. when a new talker's stream starts.
    public func reset() {
        _ = copus_decoder_reset_state(state)
    }

    // MARK: - Helpers

    /// The packet's duration at this decoder's rate, or the reason it is unusable.
    private func packetSamples(_ packet: UnsafeRawBufferPointer) throws(OpusError) -> Int {
        guard let data = packet.baseAddress, packet.count > 0 else {
            throw OpusError(
                code: OPUS_INVALID_PACKET, context: "empty packet; use decodeLoss(samples:) for a lost packet")
        }
        guard packet.count <= Int(Int32.max) else {
            throw OpusError(code: OPUS_INVALID_PACKET, context: "\(packet.count) byte packet")
        }
        let samples = opus_decoder_get_nb_samples(
            state, data.assumingMemoryBound(to: UInt8.self), Int32(packet.count))
        // A code 3 packet whose count byte says 0 frames reports 0 samples, not an error.
        guard samples != 0 else {
            throw OpusError(code: OPUS_INVALID_PACKET, context: "packet has no frames")
        }
        return Int(try OpusError.check(samples, "packet duration"))
    }

    private func checkConcealmentSize(_ samples: Int) throws(OpusError) {
        let unit = Int(sampleRate) / 400
        guard samples > 0, samples <= maxFrameSize, samples % unit == 0 else {
            throw OpusError(
                code: OPUS_BAD_ARG,
                context: "\(samples) samples at \(sampleRate) Hz; must be a multiple of 2.5 ms (\(unit)) up to 120 ms")
        }
    }

    /// Makes an array of exactly `samples * channels` and lets `body` fill it,
    /// returning samples per channel written.
    private func decodeToArray(
        samples: Int,
        _ body: (UnsafeMutableBufferPointer<Int16>) throws(OpusError) -> Int
    ) throws(OpusError) -> [Int16] {
        var failure: OpusError?
        let pcm = [Int16](unsafeUninitializedCapacity: samples * channels) { buffer, count in
            do throws(OpusError) {
                count = try body(buffer) * channels
            } catch {
                failure = error
                count = 0
            }
        }
        if let failure { throw failure }
        return pcm
    }
}
