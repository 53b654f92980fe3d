import Opus
import Testing

@Suite("Discontinuous transmission")
struct DTXTests {
    /// Packet sizes for `frames` 20 ms frames of digital silence.
    private func silencePacketSizes(dtx: Bool, frames: Int = 50) throws -> [Int] {
        let encoder = try OpusEncoder(application: .voip)
        try encoder.setDTX(dtx)
        let silence = [Int16](repeating: 0, count: 960)
        return try (0..<frames).map { _ in
            let packet = try encoder.encode(silence, frameSize: 960)
            let info = try OpusPacket.validate(packet)
            #expect(info.totalSamples == 960)
            return packet.count
        }
    }

    @Test("DTX on silence produces tiny packets")
    func dtxSilence() throws {
        let withDTX = try silencePacketSizes(dtx: true)
        // After a ~200 ms hangover the encoder sends TOC-only packets, with one
        // full-size comfort-noise refresh about every 400 ms (20 frames).
        let afterHangover = withDTX.dropFirst(10)
        let tiny = afterHangover.filter { $0 <= 2 }.count
        #expect(tiny >= afterHangover.count * 9 / 10, "DTX packet sizes \(withDTX)")
        #expect(afterHangover.contains(1), "DTX packet sizes \(withDTX)")

        // Without DTX the same silence costs real bytes.
        let withoutDTX = try silencePacketSizes(dtx: false)
        #expect(withoutDTX.suffix(20).allSatisfy { $0 > 2 }, "non-DTX packet sizes \(withoutDTX)")
        let bytesWith = withDTX.dropFirst(10).reduce(0, +)
        let bytesWithout = withoutDTX.dropFirst(10).reduce(0, +)
        #expect(bytesWith * 5 < bytesWithout, "DTX \(bytesWith) bytes vs \(bytesWithout) without")
    }

    @Test("DTX packets decode to the frame duration")
    func dtxDecodes() throws {
        let encoder = try OpusEncoder(application: .voip)
        try encoder.setDTX(true)
        let decoder = try OpusDecoder()
        let silence = [Int16](repeating: 0, count: 960)
        for _ in 0..<40 {
            let packet = try encoder.encode(silence, frameSize: 960)
            #expect(try decoder.decode(packet).count == 960)
        }
    }
}
