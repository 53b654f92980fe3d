import Opus
import Testing

@Suite("Encode and decode")
struct EncodeDecodeTests {
    @Test("20 ms mono 440 Hz sine survives a round trip")
    func monoSineRoundTrip() throws {
        let encoder = try OpusEncoder(sampleRate: 48_000, channels: 1, application: .voip)
        let decoder = try OpusDecoder(sampleRate: 48_000, channels: 1)
        let frameSize = encoder.frameSize(for: .milliseconds(20))
        #expect(frameSize == 960)

        let frames = TestSignals.sine(frequencies: [440], frameSize: frameSize, frames: 25)
        var input: [Int16] = []
        var output: [Int16] = []
        for frame in frames {
            let packet = try encoder.encode(frame, frameSize: frameSize)
            #expect(packet.count > 1 && packet.count <= OpusEncoder.maxPacketSize)
            let pcm = try decoder.decode(packet)
            #expect(pcm.count == frameSize)
            #expect(decoder.lastPacketDuration == frameSize)
            #expect(decoder.finalRange == encoder.finalRange)
            input += frame
            output += pcm
        }
        #expect(output.count == input.count)

        // Decoded audio lags the input by the encoder lookahead (312 samples at 48 kHz).
        let lag = encoder.lookahead
        #expect(lag > 0 && lag < frameSize)
        let start = 5 * frameSize  // skip the codec's start-up
        let count = input.count - start - lag - 55  // room for the misaligned check below
        let aligned = TestSignals.correlation(input, output, lag: lag, start: start, count: count)
        #expect(aligned > 0.9, "aligned correlation \(aligned)")

        // The check can fail: half a 440 Hz period (55 samples) off, the same signal anti-correlates.
        let misaligned = TestSignals.correlation(input, output, lag: lag + 55, start: start, count: count)
        #expect(misaligned < 0, "misaligned correlation \(misaligned)")

        let inputLevel = TestSignals.rms(input, start..<(start + count))
        let outputLevel = TestSignals.rms(output, (start + lag)..<(start + lag + count))
        #expect(
            outputLevel > inputLevel * 0.7 && outputLevel < inputLevel * 1.4, "rms in \(inputLevel) out \(outputLevel)")
    }

    @Test("stereo round trip", arguments: [10, 60])
    func stereoRoundTrip(milliseconds: Int) throws {
        let encoder = try OpusEncoder(sampleRate: 48_000, channels: 2, application: .audio)
        let decoder = try OpusDecoder(sampleRate: 48_000, channels: 2)
        let frameSize = encoder.frameSize(for: .milliseconds(milliseconds))
        #expect(frameSize == 48 * milliseconds)

        let frameCount = max(10, 600 / milliseconds)
        let frames = TestSignals.sine(frequencies: [440, 660], frameSize: frameSize, frames: frameCount)
        var input: [Int16] = []
        var output: [Int16] = []
        for frame in frames {
            let packet = try encoder.encode(frame, frameSize: frameSize)
            let info = try OpusPacket.validate(packet)
            #expect(info.isStereo)
            #expect(info.channels == 2)
            #expect(info.totalSamples == frameSize)
            #expect(info.duration == .milliseconds(milliseconds))

            let pcm = try decoder.decode(packet)
            #expect(pcm.count == frameSize * 2)
            #expect(decoder.lastPacketDuration == frameSize)
            input += frame
            output += pcm
        }

        let lag = encoder.lookahead
        for (channel, frequency) in [440.0, 660.0].enumerated() {
            let sent = TestSignals.channel(channel, of: input, channels: 2)
            let received = TestSignals.channel(channel, of: output, channels: 2)
            let start = 4_800  // 100 ms
            let ncc = TestSignals.correlation(sent, received, lag: lag, start: start, count: sent.count - start - lag)
            #expect(ncc > 0.9, "channel \(channel) (\(frequency) Hz) correlation \(ncc)")
        }
    }

    @Test("decoding at a lower rate resamples the packet's duration")
    func decodeAtLowerRate() throws {
        let encoder = try OpusEncoder()
        let decoder = try OpusDecoder(sampleRate: 16_000, channels: 1)
        let frame = TestSignals.sine(frequencies: [440], frameSize: 960, frames: 1)[0]
        let pcm = try decoder.decode(try encoder.encode(frame, frameSize: 960))
        #expect(pcm.count == 320)
        #expect(decoder.lastPacketDuration == 320)
        #expect(decoder.maxFrameSize == 1_920)
    }

    @Test("a mono decoder accepts stereo packets and vice versa")
    func channelMismatch() throws {
        let stereo = try OpusEncoder(channels: 2, application: .audio)
        let frame = TestSignals.sine(frequencies: [440, 440], frameSize: 960, frames: 1)[0]
        let packet = try stereo.encode(frame, frameSize: 960)
        #expect(try OpusDecoder(channels: 1).decode(packet).count == 960)

        let mono = try OpusEncoder(channels: 1)
        let monoPacket = try mono.encode(Array(repeating: 0, count: 960), frameSize: 960)
        #expect(try OpusDecoder(channels: 2).decode(monoPacket).count == 1_920)
    }

    @Test("encoding into caller memory matches the array API")
    func encodeIntoBuffer() throws {
        let a = try OpusEncoder()
        let b = try OpusEncoder()
        let frames = TestSignals.sine(frequencies: [440], frameSize: 960, frames: 3)
        var buffer = [UInt8](repeating: 0, count: OpusEncoder.maxPacketSize)
        for frame in frames {
            let expected = try a.encode(frame, frameSize: 960)
            let written = try frame.withUnsafeBufferPointer { pcm in
                try buffer.withUnsafeMutableBytes { out in
                    try b.encode(pcm, frameSize: 960, into: out)
                }
            }
            #expect(Array(buffer[..<written]) == expected)
        }
    }

    @Test("decoding into caller memory")
    func decodeIntoBuffer() throws {
        let encoder = try OpusEncoder()
        let decoder = try OpusDecoder()
        let packet = try encoder.encode(Array(repeating: 100, count: 960), frameSize: 960)
        var pcm = [Int16](repeating: 0, count: decoder.maxFrameSize)
        let samples = try packet.withUnsafeBytes { bytes in
            try pcm.withUnsafeMutableBufferPointer { try decoder.decode(bytes, into: $0) }
        }
        #expect(samples == 960)

        // Too little room is an error, not an overrun.
        var small = [Int16](repeating: 0, count: 480)
        #expect(throws: OpusError.bufferTooSmall) {
            try packet.withUnsafeBytes { bytes in
                try small.withUnsafeMutableBufferPointer { try decoder.decode(bytes, into: $0) }
            }
        }
    }

    @Test("encode rejects a wrong frame size or sample count")
    func encodeArgumentErrors() throws {
        let encoder = try OpusEncoder()
        #expect(throws: OpusError.badArgument) {
            try encoder.encode(Array(repeating: 0, count: 1_000), frameSize: 1_000)
        }
        #expect(throws: OpusError.badArgument) {
            try encoder.encode(Array(repeating: 0, count: 959), frameSize: 960)
        }
        #expect(throws: OpusError.badArgument) {
            try encoder.encode([], frameSize: 0)
        }
        let stereo = try OpusEncoder(channels: 2)
        #expect(throws: OpusError.badArgument) {
            try stereo.encode(Array(repeating: 0, count: 960), frameSize: 960)
        }
        // Every codable duration is accepted, up to 120 ms.
        for ms in [2.5, 5, 10, 20, 40, 60, 80, 100, 120] {
            let size = encoder.frameSize(for: .microseconds(Int(ms * 1_000)))
            let packet = try encoder.encode(Array(repeating: 0, count: size), frameSize: size)
            #expect(try OpusPacket.validate(packet).totalSamples == size, "\(ms) ms")
        }
    }

    @Test("frameSize(for:) scales with the sample rate")
    func frameSizes() throws {
        #expect(try OpusEncoder(sampleRate: 8_000).frameSize(for: .milliseconds(20)) == 160)
        #expect(try OpusEncoder(sampleRate: 16_000).frameSize(for: .microseconds(2_500)) == 40)
        #expect(try OpusEncoder(sampleRate: 48_000).frameSize(for: .milliseconds(60)) == 2_880)
        #expect(try OpusEncoder(sampleRate: 48_000).frameSize(for: .seconds(1)) == 48_000)
    }
}
