import Opus
import OpusPacketFormat

/// Opus packet validation (libopus's parser through `OpusPacket.validate`): what it accepts must be
/// at most 120 ms, agree with the Swift TOC reading (`OpusFraming`, which the Ogg code uses), and decode.
enum OpusPacketFuzz {
    nonisolated(unsafe) static let decoder = try! OpusDecoder(sampleRate: 48_000, channels: 2)

    static func run(_ bytes: UnsafeRawBufferPointer) {
        guard let info = try? OpusPacket.validate(bytes) else { return }
        precondition(info.totalSamples <= OpusPacket.maxSamples, "validate accepted more than 120 ms")
        precondition((1...48).contains(info.frameCount), "impossible frame count")
        precondition(
            OpusFraming.frameCount(of: bytes) == info.frameCount,
            "the TOC reading and libopus disagree on the frame count")
        precondition(
            OpusFraming.samplesPerFrame(toc: bytes[0]) == info.samplesPerFrame,
            "the TOC reading and libopus disagree on the frame size")
        precondition(
            OpusFraming.sampleCount(of: bytes) == info.totalSamples,
            "the TOC reading and libopus disagree on the duration")
        do {
            let pcm = try decoder.decode([UInt8](bytes))
            precondition(pcm.count == info.totalSamples * 2, "decoded a different duration than validated")
        } catch {
            preconditionFailure("validate accepted a packet opus_decode refuses: \(error)")
        }
    }
}
