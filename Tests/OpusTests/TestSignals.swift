import Foundation
import TestSupport

/// Signal generation and comparison helpers for the Opus tests.
enum TestSignals {
    /// `frames` frames of `frameSize` samples per channel; channel `c` carries a sine at `frequencies[c]`.
    static func sine(
        frequencies: [Double],
        sampleRate: Double = 48_000,
        amplitude: Double = 0.5,
        frameSize: Int,
        frames: Int
    ) -> [[Int16]] {
        let channels = frequencies.count
        var result: [[Int16]] = []
        var n = 0
        for _ in 0..<frames {
            var frame: [Int16] = []
            frame.reserveCapacity(frameSize * channels)
            for _ in 0..<frameSize {
                for f in frequencies {
                    frame.append(Int16(amplitude * 32_767 * sin(2 * .pi * f * Double(n) / sampleRate)))
                }
                n += 1
            }
            result.append(frame)
        }
        return result
    }

    /// One channel out of interleaved samples.
    static func channel(_ c: Int, of interleaved: [Int16], channels: Int) -> [Int16] {
        stride(from: c, to: interleaved.count, by: channels).map { interleaved[$0] }
    }

    /// Normalized cross-correlation of `a[start..<start+count]` with `b[start+lag..<start+lag+count]`.
    static func correlation(_ a: [Int16], _ b: [Int16], lag: Int, start: Int, count: Int) -> Double {
        var ab = 0.0
        var aa = 0.0
        var bb = 0.0
        for i in start..<(start + count) {
            let x = Double(a[i])
            let y = Double(b[i + lag])
            ab += x * y
            aa += x * x
            bb += y * y
        }
        guard aa > 0, bb > 0 else { return 0 }
        return ab / (aa * bb).squareRoot()
    }

    /// Root-mean-square level of `samples[range]`.
    static func rms(_ samples: [Int16], _ range: Range<Int>) -> Double {
        let sum = samples[range].reduce(0.0) { $0 + Double($1) * Double($1) }
        return (sum / Double(range.count)).squareRoot()
    }
}

/// Independent reading of a TOC byte per RFC 6716 §3.1 (Table 2), to cross-check `OpusPacket.validate`.
enum ReferenceTOC {
    /// Samples per frame at 48 kHz for the packet's configuration number.
    static func samplesPerFrame(_ toc: UInt8) -> Int {
        let config = Int(toc >> 3)
        switch config {
        case 0...11:  // SILK-only: 10, 20, 40, 60 ms
            return [480, 960, 1920, 2880][config % 4]
        case 12...15:  // Hybrid: 10, 20 ms
            return [480, 960][config % 2]
        default:  // CELT-only: 2.5, 5, 10, 20 ms
            return [120, 240, 480, 960][config % 4]
        }
    }

    /// Frame count from the code bits (and the frame count byte for code 3).
    static func frameCount(_ packet: [UInt8]) -> Int {
        switch packet[0] & 3 {
        case 0: 1
        case 1, 2: 2
        default: Int(packet[1] & 0x3F)
        }
    }

    static func channels(_ toc: UInt8) -> Int { toc & 0x4 != 0 ? 2 : 1 }
}
