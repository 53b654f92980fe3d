import AudioFiles
import Foundation
import TestSupport
import Testing

@Suite("WAV writer → reader")
struct WAVRoundTripTests {
    @Test(
        "In-memory round trip, mono and stereo, several rates",
        arguments: [(1, 8_000), (2, 44_100), (1, 48_000), (2, 48_000)])
    func roundTrip(channels: Int, rate: Int) throws {
        let format = try WAVFormat(sampleRate: rate, channelCount: channels)
        let samples =
            WAVFixtures.sine(frames: rate / 10, channels: channels, sampleRate: rate)
            + [.min, .max, 0, -1]
            .prefix(channels * 2)
        let bytes = try WAVWriter.file(format: format, samples: samples)
        #expect(bytes.count == 44 + samples.count * 2)
        #expect(Array(bytes[0..<4]) == Array("RIFF".utf8) && Array(bytes[8..<16]) == Array("WAVEfmt ".utf8))
        let read = try WAVReader.read(bytes)
        #expect(read.format == format)
        #expect(read.samples == samples)
    }

    @Test("The header matches the canonical 44-byte layout")
    func headerLayout() throws {
        let header = WAVWriter.header(format: try WAVFormat(sampleRate: 48_000, channelCount: 2), dataByteCount: 8)
        let expected: [UInt8] =
            Array("RIFF".utf8) + [44, 0, 0, 0] + Array("WAVEfmt ".utf8) + [16, 0, 0, 0, 1, 0, 2, 0]
            + [0x80, 0xBB, 0, 0, 0x00, 0xEE, 0x02, 0, 4, 0, 16, 0] + Array("data".utf8) + [8, 0, 0, 0]
        #expect(header == expected)
        let streaming = WAVWriter.header(format: try WAVFormat(sampleRate: 8_000, channelCount: 1), dataByteCount: nil)
        #expect(
            Array(streaming[4..<8]) == [0xFF, 0xFF, 0xFF, 0xFF]
                && Array(streaming[40..<44]) == [0xFF, 0xFF, 0xFF, 0xFF])
    }

    @Test("Feeding one byte at a time gives the same samples")
    func byteAtATime() throws {
        let format = try WAVFormat(sampleRate: 16_000, channelCount: 2)
        let samples = WAVFixtures.sine(frames: 1_000, channels: 2, sampleRate: 16_000)
        let bytes = WAVFixtures.riff([
            WAVFixtures.chunk("LIST", Array("INFOISFT".utf8) + [3, 0, 0, 0, 0x61, 0x62, 0x63]),
            WAVFixtures.chunk("fmt ", WAVFixtures.fmt(channels: 2, rate: 16_000)),
            WAVFixtures.chunk("data", RawPCM.bytes(samples)),
        ])
        var reader = WAVReader()
        var read: [Int16] = []
        for byte in bytes {
            reader.feed([byte])
            while let chunk = try reader.nextSamples(maxFrames: 7) {
                #expect(chunk.count % 2 == 0)
                read += chunk
            }
        }
        try reader.finishInput()
        #expect(reader.format == format)
        #expect(read == samples)
        #expect(reader.isComplete)
    }

    @Test("WAVE_FORMAT_EXTENSIBLE with the PCM subformat is read")
    func extensible() throws {
        let samples: [Int16] = [1, -1, 300, -300, .max, .min]
        let bytes = WAVFixtures.riff([
            WAVFixtures.chunk("fmt ", WAVFixtures.fmt(channels: 2, rate: 32_000, extensibleSubformat: 1)),
            WAVFixtures.chunk("data", RawPCM.bytes(samples)),
        ])
        let read = try WAVReader.read(bytes)
        #expect(read.format == (try WAVFormat(sampleRate: 32_000, channelCount: 2)))
        #expect(read.samples == samples)
    }

    @Test("Unknown chunks are skipped wherever they are, odd sizes padded; trailing chunks ignored")
    func unknownChunks() throws {
        let samples: [Int16] = [10, 20, 30, 40, 50]
        let bytes = WAVFixtures.riff([
            WAVFixtures.chunk("JUNK", [UInt8](repeating: 0, count: 28)),
            WAVFixtures.chunk("bext", [1, 2, 3]),  // odd: padded to 4
            WAVFixtures.chunk("fmt ", WAVFixtures.fmt(channels: 1, rate: 22_050)),
            WAVFixtures.chunk("fact", [5, 0, 0, 0]),
            WAVFixtures.chunk("data", RawPCM.bytes(samples)),
            WAVFixtures.chunk("LIST", Array("INFOjunk".utf8)),
        ])
        let read = try WAVReader.read(bytes)
        #expect(read.format.sampleRate == 22_050)
        #expect(read.samples == samples)
    }

    @Test("Streamed sizes (0 and 0xFFFFFFFF) mean: until the end of the input", arguments: [UInt32(0), 0xFFFF_FFFF])
    func streamedSizes(size: UInt32) throws {
        let samples = WAVFixtures.sine(frames: 500, channels: 1, sampleRate: 8_000)
        let bytes = WAVFixtures.riff(
            [
                WAVFixtures.chunk("fmt ", WAVFixtures.fmt(channels: 1, rate: 8_000)),
                WAVFixtures.dataChunk(declaredSize: size, RawPCM.bytes(samples) + [0x7F]),
            ],  // a stray partial frame
            riffSize: size)
        var reader = WAVReader()
        reader.feed(bytes)
        var read: [Int16] = []
        while let chunk = try reader.nextSamples() { read += chunk }
        try reader.finishInput()
        #expect(read == samples)
        #expect(reader.declaredDataBytes == nil)
        #expect(!reader.isComplete)
    }

    @Test("A data chunk shorter than declared is delivered and measurable")
    func shortData() throws {
        let samples: [Int16] = [1, 2, 3, 4]
        let bytes = WAVFixtures.riff([
            WAVFixtures.chunk("fmt ", WAVFixtures.fmt(channels: 2, rate: 8_000)),
            WAVFixtures.dataChunk(declaredSize: 1_000, RawPCM.bytes(samples)),
        ])
        var reader = WAVReader()
        reader.feed(bytes)
        #expect(try reader.nextSamples() == samples)
        #expect(try reader.nextSamples() == nil)
        try reader.finishInput()
        #expect(reader.declaredDataBytes == 1_000 && reader.dataBytesRead == 8)
    }

    @Test("File writer patches sizes in a file; leaves them unknown on a pipe")
    func files() throws {
        let directory = try OggFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let format = try WAVFormat(sampleRate: 48_000, channelCount: 2)
        let samples = WAVFixtures.sine(frames: 4_800, channels: 2, sampleRate: 48_000)

        let path = directory.appendingPathComponent("a.wav").path
        let writer = try WAVFileWriter(path: path, format: format)
        #expect(writer.isSeekable)
        try writer.write(samples.prefix(1_000))
        try writer.write(samples.dropFirst(1_000))
        #expect(writer.frameCount == 4_800)
        #expect(throws: WAVError.invalidArgument("3 samples is not a whole number of 2-channel frames")) {
            try writer.write([1, 2, 3])
        }
        try writer.finish()
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(bytes.count == 44 + 4_800 * 4)
        #expect(Array(bytes[40..<44]) == WAVFixtures.le32(4_800 * 4))
        #expect(Array(bytes[4..<8]) == WAVFixtures.le32(4_800 * 4 + 36))
        let read = try WAVReader.readFile(path: path)
        #expect(read.format == format && read.samples == samples)

        let pipe = Pipe()
        let streamer = try WAVFileWriter(handle: pipe.fileHandleForWriting, format: format)
        #expect(!streamer.isSeekable)
        try streamer.write(samples.prefix(2_000))
        try streamer.finish()
        try pipe.fileHandleForWriting.close()
        let reader = WAVFileReader(handle: pipe.fileHandleForReading, chunkSize: 100)
        #expect(try reader.readHeader() == format)
        var fromPipe: [Int16] = []
        while let chunk = try reader.read(maxFrames: 64) { fromPipe += chunk }
        #expect(fromPipe == Array(samples.prefix(2_000)))

        #expect(throws: WAVError.self) {
            try WAVReader.readFile(path: directory.appendingPathComponent("missing.wav").path)
        }
    }

    @Test("Raw PCM helpers are little-endian")
    func rawPCM() {
        #expect(RawPCM.bytes([1, -2, .max, .min]) == [1, 0, 0xFE, 0xFF, 0xFF, 0x7F, 0x00, 0x80])
        #expect(RawPCM.samples([1, 0, 0xFE, 0xFF, 0xFF, 0x7F, 0x00, 0x80, 9]) == [1, -2, .max, .min])
        var rng = SplitMix64(seed: 12)
        let samples = (0..<1_000).map { _ in Int16.random(in: .min ... .max, using: &rng) }
        #expect(RawPCM.samples(RawPCM.bytes(samples)) == samples)
    }
}
