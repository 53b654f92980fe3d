import Opus
import Testing

@Suite("Encoder and decoder setup")
struct CodecSetupTests {
    @Test("invalid sample rates are errors", arguments: [0, -48_000, 44_100, 22_050, 96_000, 32_000] as [Int32])
    func invalidSampleRate(rate: Int32) {
        #expect(throws: OpusError.badArgument) { try OpusEncoder(sampleRate: rate) }
        #expect(throws: OpusError.badArgument) { try OpusDecoder(sampleRate: rate) }
        do {
            _ = try OpusEncoder(sampleRate: rate)
        } catch {
            #expect(error.description.contains("\(rate)"), "\(error)")
        }
    }

    @Test("invalid channel counts are errors", arguments: [0, -1, 3, 8, 255])
    func invalidChannels(channels: Int) {
        #expect(throws: OpusError.badArgument) { try OpusEncoder(channels: channels) }
        #expect(throws: OpusError.badArgument) { try OpusDecoder(channels: channels) }
        do {
            _ = try OpusDecoder(channels: channels)
        } catch {
            #expect(error.description.contains("channels"), "\(error)")
        }
    }

    @Test("every supported rate and channel count works")
    func validFormats() throws {
        for rate: Int32 in [8_000, 12_000, 16_000, 24_000, 48_000] {
            for channels in 1...2 {
                for application: OpusEncoder.Application in [.voip, .audio, .lowDelay] {
                    let encoder = try OpusEncoder(sampleRate: rate, channels: channels, application: application)
                    #expect(encoder.sampleRate == rate && encoder.channels == channels)
                    let size = encoder.frameSize(for: .milliseconds(20))
                    let packet = try encoder.encode(Array(repeating: 0, count: size * channels), frameSize: size)
                    let decoder = try OpusDecoder(sampleRate: rate, channels: channels)
                    #expect(try decoder.decode(packet).count == size * channels)
                }
            }
        }
    }

    @Test("settings round-trip through libopus")
    func settings() throws {
        let encoder = try OpusEncoder()
        try encoder.setBitrate(24_000)
        #expect(encoder.bitrate == 24_000)
        try encoder.setBitrate(.bitsPerSecond(16_000))
        #expect(encoder.bitrate == 16_000)
        try encoder.setBitrate(.auto)
        #expect(encoder.bitrate > 0)

        try encoder.setComplexity(5)
        #expect(encoder.complexity == 5)
        try encoder.setPacketLossPercent(15)
        #expect(encoder.packetLossPercent == 15)

        #expect(encoder.dtx == false)
        try encoder.setDTX(true)
        #expect(encoder.dtx)
        #expect(encoder.inbandFEC == false)
        try encoder.setInbandFEC(true)
        #expect(encoder.inbandFEC)
        try encoder.setSignal(.music)
        try encoder.setSignal(.auto)
    }

    @Test("out-of-range settings are errors")
    func invalidSettings() throws {
        let encoder = try OpusEncoder()
        #expect(throws: OpusError.badArgument) { try encoder.setBitrate(0) }
        #expect(throws: OpusError.badArgument) { try encoder.setBitrate(-5) }
        #expect(throws: OpusError.badArgument) { try encoder.setComplexity(11) }
        #expect(throws: OpusError.badArgument) { try encoder.setComplexity(-1) }
        #expect(throws: OpusError.badArgument) { try encoder.setPacketLossPercent(101) }
        #expect(throws: OpusError.badArgument) { try encoder.setPacketLossPercent(-1) }
        #expect(encoder.complexity != 11)
    }

    @Test("error text comes from libopus")
    func errorText() {
        #expect(OpusError.badArgument.message == "invalid argument")
        #expect(OpusError.invalidPacket.description.contains("corrupted stream"))
        let withContext = OpusError(code: OpusError.badArgument.code, context: "why")
        #expect(withContext == .badArgument)
        #expect(withContext.description == "opus: invalid argument (why)")
    }
}
