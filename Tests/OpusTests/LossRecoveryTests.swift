import Opus
import Testing

@Suite("Packet loss")
struct LossRecoveryTests {
    @Test("decodeLoss conceals the requested duration")
    func concealment() throws {
        let encoder = try OpusEncoder()
        let decoder = try OpusDecoder()
        let frames = TestSignals.sine(frequencies: [440], frameSize: 960, frames: 5)
        for frame in frames {
            _ = try decoder.decode(try encoder.encode(frame, frameSize: 960))
        }
        let concealed = try decoder.decodeLoss(samples: 960)
        #expect(concealed.count == 960)
        #expect(decoder.lastPacketDuration == 960)
        // Concealment continues the tone rather than emitting silence.
        #expect(TestSignals.rms(concealed, 0..<480) > 1_000)

        let stereo = try OpusDecoder(channels: 2)
        #expect(try stereo.decodeLoss(samples: 480).count == 960)
    }

    @Test("decodeLoss rejects durations Opus cannot produce")
    func concealmentArguments() throws {
        let decoder = try OpusDecoder()
        for samples in [0, -960, 100, 5_761, 5_880] {
            #expect(throws: OpusError.badArgument, "\(samples)") { try decoder.decodeLoss(samples: samples) }
        }
        #expect(try decoder.decodeLoss(samples: 5_760).count == 5_760)
    }

    @Test("an empty packet is an error, not silent concealment")
    func emptyPacket() throws {
        let decoder = try OpusDecoder()
        #expect(throws: OpusError.invalidPacket) { try decoder.decode([]) }
        #expect(throws: OpusError.invalidPacket) { try decoder.decodeFEC([], samples: 960) }
    }

    @Test("in-band FEC recovers a lost frame from the next packet")
    func forwardErrorCorrection() throws {
        let encoder = try OpusEncoder(application: .voip)
        try encoder.setBitrate(24_000)
        try encoder.setInbandFEC(true)
        try encoder.setPacketLossPercent(20)
        try encoder.setSignal(.voice)
        let frames = TestSignals.sine(frequencies: [300], amplitude: 0.3, frameSize: 960, frames: 12)
        let packets = try frames.map { try encoder.encode($0, frameSize: 960) }

        let decoder = try OpusDecoder()
        for packet in packets[..<10] {
            _ = try decoder.decode(packet)
        }
        // Packet 10 is lost; recover it from packet 11, then decode packet 11 itself.
        let recovered = try decoder.decodeFEC(packets[11], samples: 960)
        #expect(recovered.count == 960)
        #expect(TestSignals.rms(recovered, 0..<960) > 500)
        #expect(try decoder.decode(packets[11]).count == 960)
    }

    @Test("reset keeps the codecs usable")
    func reset() throws {
        let encoder = try OpusEncoder()
        let decoder = try OpusDecoder()
        let frame = TestSignals.sine(frequencies: [440], frameSize: 960, frames: 1)[0]
        _ = try decoder.decode(try encoder.encode(frame, frameSize: 960))
        encoder.reset()
        decoder.reset()
        let packet = try encoder.encode(frame, frameSize: 960)
        #expect(try decoder.decode(packet).count == 960)
        #expect(decoder.finalRange == encoder.finalRange)
    }
}
