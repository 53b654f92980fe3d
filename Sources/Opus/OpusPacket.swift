internal import COpus
import OpusPacketFormat

/// Structural checks on Opus packets (RFC 6716 §3), without decoding them.
///
/// A relay uses this to refuse garbage before forwarding it: `validate` runs
/// libopus's own packet parser, so anything it accepts an `opus_decode` call
/// will also accept as framing.
public enum OpusPacket {
    /// The longest packet Opus allows: 120 ms, in samples per channel at 48 kHz (`OpusFraming.maxSamples`).
    public static var maxSamples: Int { OpusFraming.maxSamples }

    /// Checks that `bytes` is one well-formed Opus packet no longer than 120 ms.
    ///
    /// A 1-byte packet (TOC only, code 0) is legal: it is an empty frame, which
    /// is what DTX sends during silence. An empty buffer is not.
    ///
    /// Does not allocate: suitable for the per-packet path.
    ///
    /// - Returns: frame count, durations, channels and bandwidth.
    /// - Throws: `.empty`, `.tooLong(samples:)` or `.malformed(_)` with libopus's reason.
    public static func validate(_ bytes: UnsafeRawBufferPointer) throws(OpusPacketError) -> OpusPacketInfo {
        guard bytes.count > 0 else { throw .empty }
        // opus_int32 length. A legal packet is far smaller (48 frames of at most 1275 bytes
        // plus headers and padding), but padding can be arbitrarily long, so refuse
        // rather than truncate.
        guard bytes.count <= Int(Int32.max) else {
            throw .malformed(OpusError(code: OPUS_BAD_ARG, context: "\(bytes.count) bytes"))
        }
        let result: Result<OpusPacketInfo, OpusPacketError> = bytes.withMemoryRebound(to: UInt8.self) { packet in
            parse(packet.baseAddress!, count: Int32(packet.count))
        }
        return try result.get()
    }

    /// Checks that `bytes` is one well-formed Opus packet no longer than 120 ms.
    ///
    /// Convenience over any byte collection (`[UInt8]`, `ArraySlice<UInt8>`, ...);
    /// contiguous collections are checked in place, others are copied first.
    public static func validate(_ bytes: some Collection<UInt8>) throws(OpusPacketError) -> OpusPacketInfo {
        let result = bytes.withContiguousStorageIfAvailable { buffer in
            Result { () throws(OpusPacketError) in try validate(UnsafeRawBufferPointer(buffer)) }
        }
        if let result {
            return try result.get()
        }
        return try Array(bytes).withUnsafeBytes { buffer in
            Result { () throws(OpusPacketError) in try validate(buffer) }
        }.get()
    }

    /// Parses a non-empty packet. Returns rather than throws so it can run inside
    /// the (untyped-rethrows) memory-rebinding closure.
    private static func parse(_ packet: UnsafePointer<UInt8>, count: Int32) -> Result<OpusPacketInfo, OpusPacketError> {
        let samplesPerFrame = Int(opus_packet_get_samples_per_frame(packet, 48_000))

        // Code 3 (RFC 6716 §3.2.5): the second byte's low 6 bits are the frame count M (codes 0 to 2
        // hold at most 2 × 60 ms, never too long). opus_packet_parse rejects M * frame size > 120 ms
        // too, but only as a generic "corrupted stream"; check first so the error says why.
        if let frames = OpusFraming.frameCount(of: UnsafeBufferPointer(start: packet, count: Int(count))),
            frames * samplesPerFrame > maxSamples
        {
            return .failure(.tooLong(samples: frames * samplesPerFrame))
        }

        // Full structural check. libopus 1.3.1: `size` (48 x opus_int16) is required and
        // always written; `frames`, `out_toc` and `payload_offset` may be NULL.
        let frameCount = withUnsafeTemporaryAllocation(of: opus_int16.self, capacity: 48) { sizes in
            opus_packet_parse(packet, count, nil, nil, sizes.baseAddress!, nil)
        }
        if frameCount < 0 {
            return .failure(.malformed(OpusError(code: frameCount)))
        }

        let totalSamples = opus_packet_get_nb_samples(packet, count, 48_000)
        if totalSamples < 0 {
            return .failure(.malformed(OpusError(code: totalSamples)))
        }
        if Int(totalSamples) > maxSamples {
            return .failure(.tooLong(samples: Int(totalSamples)))
        }

        let channels = opus_packet_get_nb_channels(packet)
        guard channels == 1 || channels == 2,
            let bandwidth = OpusBandwidth(opusValue: opus_packet_get_bandwidth(packet))
        else {
            // Every TOC byte maps to a channel count and bandwidth; kept for safety.
            return .failure(.malformed(OpusError(code: OPUS_INVALID_PACKET, context: "TOC byte \(packet[0])")))
        }

        return .success(
            OpusPacketInfo(
                frameCount: Int(frameCount),
                samplesPerFrame: samplesPerFrame,
                channels: Int(channels),
                bandwidth: bandwidth
            )
        )
    }
}
