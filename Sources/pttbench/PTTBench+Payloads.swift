#if os(Linux)
import ArgumentParser
import AudioFiles
import Foundation
import Opus

extension PTTBench {
    /// The Opus packets the talker sends, in a loop: from --opus, or encoded here.
    func makePayloads() throws -> [[UInt8]] {
        if let opus = payload.opus {
            let (_, packets) = try OggOpusReader.readFile(path: opus)
            let payloads = packets.map { $0.data }.filter { !$0.isEmpty }
            guard !payloads.isEmpty else { throw ValidationError("\(opus) has no Opus packets") }
            return payloads
        }
        // 50 packets (1 s) of 20 ms mono Opus from pseudo-random noise with a moving tone: every packet differs,
        // so a mismatched index is caught when payloads are compared.
        let encoder = try OpusEncoder(sampleRate: 48_000, channels: 1, application: .voip)
        try encoder.setBitrate(.bitsPerSecond(Int32(payload.bitrate)))
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        var packets: [[UInt8]] = []
        var phase = 0.0
        for frame in 0..<60 {
            var pcm = [Int16](repeating: 0, count: 960)
            for index in 0..<960 {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let noise = Double(Int16(truncatingIfNeeded: state >> 48)) * 0.15
                phase += 2 * Double.pi * (300 + 20 * Double(frame)) / 48_000
                pcm[index] = Int16(clamping: Int(noise + 8_000 * sin(phase)))
            }
            let packet = try encoder.encode(pcm, frameSize: 960)
            if frame >= 10 { packets.append(packet) }  // skip the encoder's first frames
        }
        return packets
    }

}
#endif
