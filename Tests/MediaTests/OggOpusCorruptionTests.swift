import AudioFiles
import TestSupport
import Testing

@Suite("Ogg Opus reader on bad input")
struct OggOpusCorruptionTests {
    static let packets = OggOpusRoundTripTests.makePackets(seed: 13, count: 40)

    static func stream() throws -> [UInt8] {
        try OggOpusRoundTripTests.write(packets)
    }

    /// Reads everything, returning the packets and the error (if any) instead of throwing.
    static func readAll(_ bytes: [UInt8]) -> (packets: [OggOpusPacket], error: OggOpusError?, reader: OggOpusReader) {
        var reader = OggOpusReader()
        reader.feed(bytes)
        var packets: [OggOpusPacket] = []
        do {
            while let packet = try reader.nextPacket() { packets.append(packet) }
            try reader.finishInput()
            return (packets, nil, reader)
        } catch {
            return (packets, error, reader)
        }
    }

    @Test("Random bytes are not Ogg")
    func randomBytes() {
        var rng = SplitMix64(seed: 1)
        for length in [4, 5, 27, 100, 5_000] {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }
            #expect(throws: OggOpusError.notOgg) { try OggOpusReader.read(bytes) }
        }
        #expect(throws: OggOpusError.truncated("the input is empty")) { try OggOpusReader.read([UInt8]()) }
        #expect(throws: OggOpusError.notOgg) { try OggOpusReader.read(Array("Og!".utf8)) }
        #expect(throws: OggOpusError.truncated("input ended inside the first page header")) {
            try OggOpusReader.read(Array("Og".utf8))
        }
        #expect(OggOpusError.notOgg.description.contains("OggS"))
    }

    @Test("A capture pattern followed by garbage fails cleanly, never crashes")
    func garbageAfterCapture() {
        var rng = SplitMix64(seed: 2)
        for _ in 0..<300 {
            let length = Int.random(in: 0...400, using: &rng)
            var bytes = Array("OggS".utf8) + (0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }
            if Bool.random(using: &rng), bytes.count > 5 { bytes[4] = 0 }  // plausible version byte
            let result = Self.readAll(bytes)
            #expect(result.error != nil)
            #expect(result.packets.isEmpty)
        }
    }

    @Test("Every truncation is reported or yields a clean prefix")
    func truncation() throws {
        let bytes = try Self.stream()
        let pages = try #require(OggFixtures.pages(bytes))
        // Page ends where a packet also ends: a cut there leaves a clean (EOS-less) stream.
        let boundaries = Set(pages.filter { $0.lacing.last != 255 }.map { $0.offset + $0.length })
        let cuts = Array(0..<300) + Array(stride(from: 300, to: bytes.count, by: 37))
        for cut in cuts {
            let result = Self.readAll(Array(bytes.prefix(cut)))
            #expect(Array(result.packets.map(\.data)) == Array(Self.packets.prefix(result.packets.count).map(\.data)))
            if boundaries.contains(cut), cut >= pages[1].offset + pages[1].length {
                #expect(result.error == nil, "cut \(cut) at a page boundary after the headers")
                #expect(!result.reader.reachedEndOfStream)
            } else {
                guard case .truncated(let why)? = result.error else {
                    Issue.record("cut \(cut): expected .truncated, got \(String(describing: result.error))")
                    continue
                }
                #expect(!why.isEmpty)
            }
        }
    }

    @Test("A page with a bad CRC is skipped and counted; the rest still reads")
    func badCRC() throws {
        var bytes = try Self.stream()
        let pages = try #require(OggFixtures.pages(bytes))
        #expect(pages.count >= 5)
        let victim = pages[3]
        bytes[victim.offset + victim.length - 1] ^= 0xFF  // last body byte
        var reader = OggOpusReader()
        reader.feed(bytes)
        var read: [OggOpusPacket] = []
        while let packet = try reader.nextPacket() { read.append(packet) }
        try reader.finishInput()
        #expect(reader.skippedBytes >= victim.length)
        #expect(reader.holes >= 1)
        #expect(reader.reachedEndOfStream)
        let lost = victim.packetsEnding
        #expect(read.count <= Self.packets.count - lost && read.count >= Self.packets.count - lost - 2)
        #expect(read.last?.data == Self.packets.last?.data)
    }

    @Test("Junk between pages is skipped and counted")
    func junkBetweenPages() throws {
        let bytes = try Self.stream()
        let pages = try #require(OggFixtures.pages(bytes))
        let split = pages[4].offset
        let junk = [UInt8](repeating: 0x4F, count: 10) + [1, 2, 3]  // "OOOO…": near-captures
        let result = Self.readAll(Array(bytes[..<split]) + junk + Array(bytes[split...]))
        #expect(result.error == nil)
        #expect(result.packets.map(\.data) == Self.packets.map(\.data))
        #expect(result.reader.skippedBytes == junk.count)
        #expect(result.reader.holes == 0)
    }

    @Test("An Ogg stream of another codec is not Opus")
    func otherCodec() throws {
        var ogg = OggStreamWriter(serial: 5)
        try ogg.append([1] + Array("vorbis".utf8) + [UInt8](repeating: 0, count: 23), granulePosition: 0)
        var bytes = ogg.flush()
        try ogg.append([3] + Array("vorbis".utf8), granulePosition: 0, endOfStream: true)
        bytes += ogg.flush()
        let error = Self.readAll(bytes).error
        #expect(error == .notOpus("the first packet starts with bytes 01 76 6f 72 62 69 73 00"))
        #expect(error?.description.contains("not an Ogg Opus stream") == true)

        var flac = OggStreamWriter(serial: 6)
        try flac.append(Array("\u{7F}FLAC".utf8) + [1, 0], granulePosition: 0, endOfStream: true)
        #expect(Self.readAll(flac.flush()).error == .notOpus("the first packet starts with bytes 7f 46 4c 41 43 01 00"))

        var text = OggStreamWriter(serial: 7)
        try text.append(Array("Speex   1.2".utf8), granulePosition: 0, endOfStream: true)
        #expect(Self.readAll(text.flush()).error == .notOpus("the first packet starts with \"Speex   \""))
    }

    @Test("OpusHead followed by something other than OpusTags")
    func missingTags() throws {
        var ogg = OggStreamWriter(serial: 5)
        try ogg.append(try OpusHead(channelCount: 1).serialized(), granulePosition: 0)
        try ogg.append([0xFC, 0xFF], granulePosition: 960 + 312, endOfStream: true)
        let error = Self.readAll(ogg.flush()).error
        #expect(error == .badTags("the second packet starts with bytes fc ff, not \"OpusTags\""))
    }

    @Test("A bad OpusHead is reported as such")
    func badHeadInStream() throws {
        var ogg = OggStreamWriter(serial: 5)
        try ogg.append(Array("OpusHead".utf8) + [1, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0], granulePosition: 0)
        #expect(Self.readAll(ogg.flush()).error == .badHead("mapping family 0 allows 1 or 2 channels, not 5"))
    }

    @Test("Multiplexed streams are refused")
    func multiplexed() throws {
        var opus = OggStreamWriter(serial: 100)
        try opus.append(try OpusHead(channelCount: 2).serialized(), granulePosition: 0)
        var other = OggStreamWriter(serial: 200)
        try other.append(Array("fishead\0".utf8) + [UInt8](repeating: 0, count: 40), granulePosition: 0)
        let bytes = opus.flush() + other.flush()
        let error = Self.readAll(bytes).error
        #expect(error == .multipleStreams(firstSerial: 100, otherSerial: 200))
        #expect(error?.description.contains("chained or multiplexed streams are not supported") == true)
    }

    @Test("Chained streams: the first one reads, then the second is refused, stickily")
    func chained() throws {
        let first = try OggOpusRoundTripTests.write(Array(Self.packets.prefix(5)))
        var writer = try OggOpusWriter(channels: 1, serial: 77)
        var second = try writer.write(packet: [0xFC, 0], samples: 960)
        second += writer.finish()
        var reader = OggOpusReader()
        reader.feed(first + second)
        var count = 0
        var thrown: OggOpusError?
        do {
            while try reader.nextPacket() != nil { count += 1 }
        } catch {
            thrown = error
        }
        #expect(count == 5)
        #expect(thrown == .multipleStreams(firstSerial: 0x1234_5678, otherSerial: 77))
        #expect(throws: OggOpusError.multipleStreams(firstSerial: 0x1234_5678, otherSerial: 77)) {
            try reader.nextPacket()
        }
        #expect(throws: OggOpusError.multipleStreams(firstSerial: 0x1234_5678, otherSerial: 77)) {
            try reader.finishInput()
        }
    }

    @Test("A stream joined mid-way (no beginning-of-stream page) is refused")
    func joinedMidway() throws {
        let bytes = try Self.stream()
        let pages = try #require(OggFixtures.pages(bytes))
        let result = Self.readAll(Array(bytes[pages[2].offset...]))
        #expect(result.error == .corrupt("the first page is not a beginning-of-stream page (stream joined mid-way?)"))
    }

    @Test("Random byte flips never crash the reader")
    func bitFlips() throws {
        let original = try Self.stream()
        var rng = SplitMix64(seed: 4)
        for _ in 0..<200 {
            var bytes = original
            for _ in 0..<Int.random(in: 1...8, using: &rng) {
                bytes[Int.random(in: 0..<bytes.count, using: &rng)] ^= UInt8.random(in: 1...255, using: &rng)
            }
            let result = Self.readAll(bytes)
            #expect(result.packets.count <= Self.packets.count)
        }
    }
}
