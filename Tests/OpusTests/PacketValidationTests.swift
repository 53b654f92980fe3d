import Opus
import Testing

/// TOC byte (RFC 6716 §3.1): config in bits 3-7, stereo flag bit 2, frame count code bits 0-1.
private func toc(config: UInt8, stereo: Bool = false, code: UInt8) -> UInt8 {
    config << 3 | (stereo ? 0x4 : 0) | code
}

private let celtFB20ms: UInt8 = 31  // CELT-only fullband 20 ms
private let silkWB20ms: UInt8 = 9  // SILK-only wideband 20 ms
private let silkNB60ms: UInt8 = 3  // SILK-only narrowband 60 ms
private let celtFB2_5ms: UInt8 = 28  // CELT-only fullband 2.5 ms

private func isMalformed(_ error: OpusPacketError) -> Bool {
    if case .malformed = error { return true }
    return false
}

@Suite("OpusPacket.validate")
struct PacketValidationTests {
    @Test("accepts every packet the encoder produces, with the right shape")
    func encoderPackets() throws {
        let cases: [(channels: Int, application: OpusEncoder.Application, ms: Double)] = [
            (1, .voip, 20), (1, .voip, 60), (1, .voip, 10), (1, .audio, 2.5), (1, .audio, 40),
            (2, .audio, 10), (2, .audio, 60), (2, .audio, 120), (1, .lowDelay, 5), (1, .voip, 120),
        ]
        for c in cases {
            let encoder = try OpusEncoder(channels: c.channels, application: c.application)
            let frameSize = encoder.frameSize(for: .microseconds(Int(c.ms * 1_000)))
            let frequencies = Array([440.0, 660.0].prefix(c.channels))
            for frame in TestSignals.sine(frequencies: frequencies, frameSize: frameSize, frames: 6) {
                let packet = try encoder.encode(frame, frameSize: frameSize)
                let info = try OpusPacket.validate(packet)
                #expect(info.totalSamples == frameSize, "\(c)")
                #expect(info.duration == .microseconds(Int(c.ms * 1_000)), "\(c)")
                #expect(info.frameCount == ReferenceTOC.frameCount(packet), "\(c)")
                #expect(info.samplesPerFrame == ReferenceTOC.samplesPerFrame(packet[0]), "\(c)")
                #expect(info.frameCount * info.samplesPerFrame == info.totalSamples)
                #expect(info.channels == ReferenceTOC.channels(packet[0]), "\(c)")
                if c.channels == 2 { #expect(info.isStereo, "\(c)") }
            }
        }
    }

    @Test("a TOC-only packet (DTX) is legal")
    func dtxPacket() throws {
        let info = try OpusPacket.validate([toc(config: celtFB20ms, code: 0)])
        #expect(info.frameCount == 1)
        #expect(info.samplesPerFrame == 960)
        #expect(info.totalSamples == 960)
        #expect(info.duration == .milliseconds(20))
        #expect(info.channels == 1)
        #expect(!info.isStereo)
        #expect(info.bandwidth == .fullband)

        let silk = try OpusPacket.validate([toc(config: silkWB20ms, stereo: true, code: 0)])
        #expect(silk.bandwidth == .wideband)
        #expect(silk.isStereo)
        #expect(silk.duration == .milliseconds(20))

        // A decoder accepts it too.
        #expect(try OpusDecoder().decode([toc(config: celtFB20ms, code: 0)]).count == 960)
    }

    @Test("bandwidth and duration come from the TOC config")
    func tocFields() throws {
        let expectations: [(config: UInt8, bandwidth: OpusBandwidth, samples: Int)] = [
            (0, .narrowband, 480), (5, .mediumband, 960), (11, .wideband, 2880),
            (12, .superwideband, 480), (15, .fullband, 960), (16, .narrowband, 120),
            (21, .wideband, 240), (26, .superwideband, 480), (31, .fullband, 960),
        ]
        for e in expectations {
            let info = try OpusPacket.validate([toc(config: e.config, code: 0), 0xAB])
            #expect(info.bandwidth == e.bandwidth, "config \(e.config)")
            #expect(info.samplesPerFrame == e.samples, "config \(e.config)")
        }
        #expect(try OpusPacket.validate([toc(config: celtFB2_5ms, code: 0)]).duration == .microseconds(2_500))
    }

    @Test("well-formed multi-frame packets")
    func multiFrame() throws {
        // Code 1: two equal frames, even payload.
        let code1 = try OpusPacket.validate([toc(config: celtFB20ms, code: 1), 1, 2, 3, 4])
        #expect(code1.frameCount == 2 && code1.duration == .milliseconds(40))
        // Code 1 with an empty payload: two empty frames.
        #expect(try OpusPacket.validate([toc(config: celtFB20ms, code: 1)]).frameCount == 2)
        // Code 2: first frame length 2, second gets the rest.
        let code2 = try OpusPacket.validate([toc(config: celtFB20ms, code: 2), 2, 9, 9, 7])
        #expect(code2.frameCount == 2)
        // Code 3 CBR: 6 x 20 ms = 120 ms, 6 bytes split evenly.
        let code3 = try OpusPacket.validate([toc(config: celtFB20ms, code: 3), 0x06, 1, 2, 3, 4, 5, 6])
        #expect(code3.frameCount == 6 && code3.totalSamples == 5_760 && code3.duration == .milliseconds(120))
        // Code 3 VBR (bit 7): frames of 1 and 2 bytes.
        let vbr = try OpusPacket.validate([toc(config: celtFB20ms, code: 3), 0x82, 1, 0xAA, 0xBB, 0xCC])
        #expect(vbr.frameCount == 2)
        // Code 3 with padding (bit 6): 2 padding bytes.
        let padded = try OpusPacket.validate([toc(config: celtFB20ms, code: 3), 0x41, 2, 0xAA, 0, 0])
        #expect(padded.frameCount == 1)
        // 48 frames of 2.5 ms: the most frames a packet can hold.
        let many = try OpusPacket.validate([toc(config: celtFB2_5ms, code: 3), 48])
        #expect(many.frameCount == 48 && many.totalSamples == 5_760)
    }

    @Test("rejects an empty packet")
    func empty() {
        #expect(throws: OpusPacketError.empty) { try OpusPacket.validate([UInt8]()) }
        #expect(throws: OpusPacketError.empty) { try OpusPacket.validate(UnsafeRawBufferPointer(start: nil, count: 0)) }
        #expect(OpusPacketError.empty.description.contains("empty"))
    }

    @Test("rejects RFC 6716 §3.4 violations")
    func malformed() {
        let packets: [(String, [UInt8])] = [
            ("code 1 with odd payload length", [toc(config: celtFB20ms, code: 1), 1, 2, 3]),
            ("code 2 with no length byte", [toc(config: celtFB20ms, code: 2)]),
            ("code 2 with frame length beyond payload", [toc(config: celtFB20ms, code: 2), 10, 1, 2, 3]),
            ("code 2 with truncated two-byte length", [toc(config: celtFB20ms, code: 2), 252]),
            ("code 3 with no count byte", [toc(config: celtFB20ms, code: 3)]),
            ("code 3 with M = 0", [toc(config: celtFB20ms, code: 3), 0x00]),
            ("code 3 with M = 0 and payload", [toc(config: celtFB20ms, code: 3), 0x00, 1, 2]),
            ("code 3 CBR not divisible by M", [toc(config: celtFB20ms, code: 3), 0x02, 1, 2, 3]),
            ("code 3 padding longer than packet", [toc(config: celtFB20ms, code: 3), 0x41, 10]),
            ("code 3 padding flag without length", [toc(config: celtFB20ms, code: 3), 0x41]),
            ("code 3 VBR frame length beyond payload", [toc(config: celtFB20ms, code: 3), 0x82, 9, 1]),
            ("code 0 frame over 1275 bytes", [toc(config: celtFB20ms, code: 0)] + Array(repeating: 0, count: 1_276)),
        ]
        for (name, packet) in packets {
            do {
                let info = try OpusPacket.validate(packet)
                Issue.record("\(name): accepted as \(info)")
            } catch {
                #expect(isMalformed(error), "\(name): \(error)")
                #expect(error.description.contains("malformed"), "\(name): \(error)")
            }
            // libopus's decoder agrees.
            #expect(throws: OpusError.invalidPacket, "\(name)") { try OpusDecoder().decode(packet) }
        }
    }

    @Test("rejects packets longer than 120 ms and says so")
    func tooLong() {
        // 7 x 20 ms = 140 ms.
        #expect(throws: OpusPacketError.tooLong(samples: 6_720)) {
            try OpusPacket.validate([toc(config: celtFB20ms, code: 3), 0x07, 1, 2, 3, 4, 5, 6, 7])
        }
        // 3 x 60 ms = 180 ms, even without the frame bytes.
        #expect(throws: OpusPacketError.tooLong(samples: 8_640)) {
            try OpusPacket.validate([toc(config: silkNB60ms, code: 3), 0x03])
        }
        // 49 x 2.5 ms, and the maximum count 63.
        #expect(throws: OpusPacketError.tooLong(samples: 5_880)) {
            try OpusPacket.validate([toc(config: celtFB2_5ms, code: 3), 49])
        }
        #expect(throws: OpusPacketError.tooLong(samples: 63 * 960)) {
            try OpusPacket.validate([toc(config: celtFB20ms, code: 3), 0xFF])
        }
        let error = OpusPacketError.tooLong(samples: 6_720)
        #expect(error.description.contains("120 ms"))
        #expect(error.description.contains("140 ms"))
    }

    @Test("collection and raw-buffer entry points agree")
    func entryPoints() throws {
        let bytes: [UInt8] = [0xFF, toc(config: celtFB20ms, code: 1), 1, 2, 0xFF]
        let slice = bytes[1..<4]
        let fromSlice = try OpusPacket.validate(slice)
        let fromBuffer = try bytes.withUnsafeBytes {
            try OpusPacket.validate(UnsafeRawBufferPointer(rebasing: $0[1..<4]))
        }
        let fromSequence = try OpusPacket.validate(AnyCollection(slice))
        #expect(fromSlice == fromBuffer)
        #expect(fromSlice == fromSequence)
        #expect(fromSlice.frameCount == 2)
    }
}
