import Foundation

/// Helpers for the WAV tests: test signals and hand-made headers.
enum WAVFixtures {
    /// A sine tone, interleaved; the right channel (if any) a fifth above the left.
    static func sine(
        frames: Int, channels: Int, sampleRate: Int, frequency: Double = 440, amplitude: Double = 12_000
    ) -> [Int16] {
        var samples: [Int16] = []
        samples.reserveCapacity(frames * channels)
        for frame in 0..<frames {
            let t = Double(frame) / Double(sampleRate)
            for channel in 0..<channels {
                let f = frequency * (channel == 0 ? 1 : 1.5)
                samples.append(Int16(amplitude * sin(2 * Double.pi * f * t)))
            }
        }
        return samples
    }

    static func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8((value >> 8) & 0xFF)] }
    static func le32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8((value >> (8 * $0)) & 0xFF) } }
    static func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8((value >> (8 * UInt32($0))) & 0xFF) } }

    static func chunk(_ id: String, _ body: [UInt8]) -> [UInt8] {
        Array(id.utf8) + le32(body.count) + body + (body.count % 2 == 1 ? [0] : [])
    }

    /// A `fmt ` body. With `extensibleSubformat` set, WAVE_FORMAT_EXTENSIBLE with that subformat code.
    static func fmt(
        tag: Int = 1, channels: Int, rate: Int, bits: Int = 16, extensibleSubformat: Int? = nil
    ) -> [UInt8] {
        let blockAlign = channels * ((bits + 7) / 8)
        var body =
            le16(extensibleSubformat == nil ? tag : 0xFFFE) + le16(channels) + le32(rate)
            + le32(rate * blockAlign) + le16(blockAlign) + le16(bits)
        if let sub = extensibleSubformat {
            body +=
                le16(22) + le16(bits) + le32(channels == 1 ? 4 : 3) + le16(sub)
                + [0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71]
        }
        return body
    }

    /// A RIFF/WAVE file from chunks (RIFF size computed unless given).
    static func riff(_ chunks: [[UInt8]], riffSize: UInt32? = nil) -> [UInt8] {
        let body = Array("WAVE".utf8) + chunks.flatMap { $0 }
        return Array("RIFF".utf8) + le32(riffSize ?? UInt32(body.count)) + body
    }

    /// A `data` chunk header with an explicit (possibly fake) size, followed by the bytes.
    static func dataChunk(declaredSize: UInt32, _ bytes: [UInt8]) -> [UInt8] {
        Array("data".utf8) + le32(declaredSize) + bytes
    }
}
