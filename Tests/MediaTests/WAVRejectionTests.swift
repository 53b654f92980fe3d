import AudioFiles
import TestSupport
import Testing

@Suite("WAV reader on unsupported and bad input")
struct WAVRejectionTests {
    static func file(fmt: [UInt8]) -> [UInt8] {
        WAVFixtures.riff([WAVFixtures.chunk("fmt ", fmt), WAVFixtures.chunk("data", [0, 0, 0, 0, 0, 0])])
    }

    @Test(
        "Non-16-bit-PCM formats are refused with the reason",
        arguments: [
            (WAVFixtures.fmt(channels: 1, rate: 8_000, bits: 8), "8-bit PCM"),
            (WAVFixtures.fmt(channels: 2, rate: 48_000, bits: 24), "24-bit PCM"),
            (WAVFixtures.fmt(channels: 1, rate: 48_000, bits: 32), "32-bit PCM"),
            (WAVFixtures.fmt(tag: 3, channels: 1, rate: 48_000, bits: 32), "32-bit IEEE float samples"),
            (WAVFixtures.fmt(channels: 2, rate: 48_000, bits: 32, extensibleSubformat: 3), "32-bit IEEE float samples"),
            (WAVFixtures.fmt(channels: 2, rate: 48_000, bits: 24, extensibleSubformat: 1), "24-bit PCM"),
            (WAVFixtures.fmt(tag: 7, channels: 1, rate: 8_000, bits: 8), "µ-law samples"),
            (WAVFixtures.fmt(tag: 0x55, channels: 1, rate: 8_000, bits: 0), "format tag 0x55"),
            (WAVFixtures.fmt(channels: 6, rate: 48_000), "6 channels"),
        ])
    func unsupported(fmt: [UInt8], reason: String) {
        #expect(throws: WAVError.unsupportedFormat(reason)) { try WAVReader.read(Self.file(fmt: fmt)) }
        #expect(WAVError.unsupportedFormat(reason).description.contains("only 16-bit PCM"))
    }

    @Test("Malformed headers are refused")
    func malformed() {
        var badAlign = WAVFixtures.fmt(channels: 2, rate: 8_000)
        badAlign[12] = 3
        #expect(throws: WAVError.badFormat("block align 3 for 2 channels of 16 bits")) {
            try WAVReader.read(Self.file(fmt: badAlign))
        }
        #expect(throws: WAVError.badFormat("fmt chunk of 8 bytes")) {
            try WAVReader.read(Self.file(fmt: [1, 0, 1, 0, 0x40, 0x1F, 0, 0]))
        }
        #expect(throws: WAVError.badFormat("data chunk before the fmt chunk")) {
            try WAVReader.read(WAVFixtures.riff([WAVFixtures.chunk("data", [0, 0])]))
        }
        #expect(throws: WAVError.badFormat("sample rate 0")) {
            try WAVReader.read(Self.file(fmt: WAVFixtures.fmt(channels: 1, rate: 0)))
        }
        #expect(throws: WAVError.badFormat("a second fmt chunk")) {
            let fmt = WAVFixtures.chunk("fmt ", WAVFixtures.fmt(channels: 1, rate: 8_000))
            _ = try WAVReader.read(WAVFixtures.riff([fmt, fmt]))
        }
    }

    @Test("Not RIFF, not WAVE, RIFX and RF64 are told apart")
    func containers() {
        #expect(throws: WAVError.notRIFF) { try WAVReader.read(Array("OggS\0\0\0\0WAVE".utf8)) }
        #expect(throws: WAVError.notWAVE) { try WAVReader.read(Array("RIFF\0\0\0\0AVI ".utf8)) }
        #expect(throws: WAVError.unsupportedFormat("big-endian RIFX")) {
            try WAVReader.read(Array("RIFX\0\0\0\0WAVE".utf8))
        }
        #expect(throws: WAVError.unsupportedFormat("RF64 (64-bit sizes)")) { try WAVReader.read(Array("RF64".utf8)) }
    }

    @Test("Input ending in the header is truncated, at every cut")
    func truncated() throws {
        let bytes = try WAVWriter.file(format: WAVFormat(sampleRate: 8_000, channelCount: 1), samples: [1, 2, 3])
        for cut in 0..<44 {
            #expect(throws: WAVError.self, "cut \(cut)") { try WAVReader.read(bytes.prefix(cut)) }
            do {
                _ = try WAVReader.read(bytes.prefix(cut))
            } catch {
                switch error {
                case .truncated: break
                default: Issue.record("cut \(cut): \(error)")
                }
            }
        }
        #expect(try WAVReader.read(bytes.prefix(44)).samples.isEmpty)
    }

    @Test("Random bytes never crash the reader, and errors are sticky")
    func randomInput() {
        var rng = SplitMix64(seed: 6)
        for _ in 0..<300 {
            let length = Int.random(in: 0...200, using: &rng)
            var bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }
            if Bool.random(using: &rng), bytes.count >= 12 {
                bytes.replaceSubrange(0..<12, with: Array("RIFF\0\0\0\0WAVE".utf8))
            }
            var reader = WAVReader()
            reader.feed(bytes)
            do {
                while try reader.nextSamples() != nil {}
            } catch {
                #expect(throws: error) { try reader.nextSamples() }
                #expect(throws: error) { try reader.finishInput() }
            }
        }
    }

    @Test("WAVFormat refuses impossible layouts")
    func formatArguments() {
        #expect(throws: WAVError.invalidArgument("3 channels; 1 or 2 are supported")) {
            try WAVFormat(sampleRate: 8_000, channelCount: 3)
        }
        #expect(throws: WAVError.invalidArgument("sample rate 0 Hz")) { try WAVFormat(sampleRate: 0, channelCount: 1) }
    }
}
