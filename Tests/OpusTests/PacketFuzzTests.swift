import Opus
import TestSupport
import Testing

@Suite("OpusPacket.validate on random input")
struct PacketFuzzTests {
    @Test("10,000 random byte strings: no crash, verdicts agree with libopus's decoder")
    func randomPackets() throws {
        var rng = SplitMix64(seed: 0x5EED_0F_0905)
        let decoder = try OpusDecoder(sampleRate: 48_000, channels: 2)
        var accepted = 0
        var rejected = [String: Int]()

        for iteration in 0..<10_000 {
            // Mostly short strings (where the framing rules bite), sometimes long ones.
            let length =
                iteration % 50 == 0 ? Int.random(in: 0...1_600, using: &rng) : Int.random(in: 0...24, using: &rng)
            let packet = (0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }

            switch Result(catching: { () throws(OpusPacketError) in try OpusPacket.validate(packet) }) {
            case .success(let info):
                accepted += 1
                #expect((1...48).contains(info.frameCount))
                #expect(info.totalSamples > 0 && info.totalSamples <= OpusPacket.maxSamples)
                #expect(info.samplesPerFrame == ReferenceTOC.samplesPerFrame(packet[0]))
                #expect(info.frameCount == ReferenceTOC.frameCount(packet))
                #expect(info.channels == ReferenceTOC.channels(packet[0]))
                // libopus decodes whatever validate accepts, to the advertised length.
                let pcm = try decoder.decode(packet)
                #expect(pcm.count == info.totalSamples * 2, "packet \(packet)")
            case .failure(let error):
                switch error {
                case .empty: rejected["empty", default: 0] += 1
                case .malformed: rejected["malformed", default: 0] += 1
                case .tooLong: rejected["tooLong", default: 0] += 1
                }
                // ... and refuses whatever validate rejects.
                #expect(throws: OpusError.invalidPacket, "packet \(packet)") { try decoder.decode(packet) }
            }
        }

        // The corpus exercises every verdict.
        #expect(accepted > 1_000)
        #expect(rejected["empty", default: 0] > 0)
        #expect(rejected["malformed", default: 0] > 100)
        #expect(rejected["tooLong", default: 0] > 100)
    }
}
