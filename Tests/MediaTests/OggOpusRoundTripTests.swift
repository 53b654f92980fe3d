import AudioFiles
import Foundation
import TestSupport
import Testing

@Suite("Ogg Opus writer → reader")
struct OggOpusRoundTripTests {
    /// 100 packets of random sizes (2...1500 bytes) and durations (2.5...120 ms).
    static func makePackets(seed: UInt64 = 7, count: Int = 100) -> [(data: [UInt8], samples: Int)] {
        var rng = SplitMix64(seed: seed)
        return (0..<count).map { _ in OggFixtures.randomPacket(using: &rng) }
    }

    /// Writes `packets` with a fixed serial; returns the whole stream.
    static func write(
        _ packets: [(data: [UInt8], samples: Int)], channels: Int = 2, preSkip: Int = 312,
        maxPacketsPerPage: Int = 20, maxSamplesPerPage: Int = 48_000
    ) throws -> [UInt8] {
        var writer = try OggOpusWriter(
            channels: channels, preSkip: preSkip, inputSampleRate: 16_000, outputGain: 128, serial: 0x1234_5678,
            vendor: "pttrelay test", comments: ["TITLE=round trip"], maxPacketsPerPage: maxPacketsPerPage,
            maxSamplesPerPage: maxSamplesPerPage)
        var bytes: [UInt8] = []
        for packet in packets {
            bytes += try writer.write(packet: packet.data, samples: packet.samples)
        }
        bytes += writer.finish()
        return bytes
    }

    @Test("100 packets round trip: data, granules, EOS, headers")
    func roundTrip() throws {
        let packets = Self.makePackets()
        let bytes = try Self.write(packets)
        var reader = OggOpusReader()
        reader.feed(bytes)
        var read: [OggOpusPacket] = []
        while let packet = try reader.nextPacket() { read.append(packet) }
        try reader.finishInput()

        #expect(read.map(\.data) == packets.map(\.data))
        let head = try #require(reader.head)
        #expect(head == (try OpusHead(channelCount: 2, preSkip: 312, inputSampleRate: 16_000, outputGain: 128)))
        #expect(reader.tags == OpusTags(vendor: "pttrelay test", comments: ["TITLE=round trip"]))
        #expect(reader.serial == 0x1234_5678)
        #expect(reader.reachedEndOfStream)
        #expect(reader.skippedBytes == 0 && reader.holes == 0)

        // Granule positions: every sample (pre-skip included) through the packet ending the page.
        var total = Int64(0)
        var sinceGranule = 0
        for (index, packet) in read.enumerated() {
            total += Int64(packets[index].samples)
            sinceGranule += 1
            if let granule = packet.granulePosition {
                #expect(granule == total, "packet \(index)")
                sinceGranule = 0
            }
            #expect(sinceGranule < 20, "a page closes at least every 20 packets (packet \(index))")
            #expect(packet.isEndOfStream == (index == read.count - 1))
        }
        #expect(read.last?.granulePosition == total)
    }

    @Test("Page layout follows RFC 7845: OpusHead alone, tags on their own page, EOS last")
    func pageLayout() throws {
        let packets = Self.makePackets(seed: 11)
        let bytes = try Self.write(packets)
        let pages = try #require(OggFixtures.pages(bytes))
        #expect(pages[0].isBeginning && pages[0].granule == 0 && pages[0].lacing == [19])
        #expect(pages[1].granule == 0 && !pages[1].isBeginning && !pages[1].isContinued)
        #expect(!pages[2].isContinued)  // audio starts on a fresh page
        #expect(pages.dropLast().allSatisfy { !$0.isEnd } && pages.last!.isEnd)
        #expect(Set(pages.map(\.serial)) == [0x1234_5678])
        #expect(pages.map(\.sequence) == (0..<UInt32(pages.count)).map { $0 })
        // Pages are closed at 20 packets or 1 s of audio (or when libogg fills one).
        for page in pages.dropFirst(2) {
            #expect(page.packetsEnding <= 20)
        }
    }

    @Test("A page is closed after 1 s of audio even with few packets")
    func pageDuration() throws {
        let packet = [UInt8(31 << 3 | 3), 6] + [UInt8](repeating: 0x55, count: 40)  // 120 ms
        let bytes = try Self.write(Array(repeating: (packet, 5_760), count: 30))
        let pages = try #require(OggFixtures.pages(bytes))
        // 48000 / 5760 → the ninth packet reaches 1 s, so audio pages hold at most 9 packets.
        #expect(pages.dropFirst(2).allSatisfy { $0.packetsEnding <= 9 })
        #expect(pages.count >= 2 + 4)
    }

    @Test("Feeding one byte at a time yields the same packets", arguments: [1, 3, 4_096])
    func streaming(chunk: Int) throws {
        let bytes = try Self.write(Self.makePackets(seed: 3))
        let whole = try OggOpusReader.read(bytes).packets
        var reader = OggOpusReader()
        var read: [OggOpusPacket] = []
        var offset = 0
        while offset < bytes.count {
            reader.feed(bytes[offset..<min(offset + chunk, bytes.count)])
            offset += chunk
            while let packet = try reader.nextPacket() { read.append(packet) }
        }
        try reader.finishInput()
        #expect(read == whole)
    }

    @Test("Random chunking yields the same packets")
    func randomChunks() throws {
        let bytes = try Self.write(Self.makePackets(seed: 5))
        let whole = try OggOpusReader.read(bytes).packets
        var rng = SplitMix64(seed: 99)
        for _ in 0..<10 {
            var reader = OggOpusReader()
            var read: [OggOpusPacket] = []
            var offset = 0
            while offset < bytes.count {
                let end = min(bytes.count, offset + Int.random(in: 1...700, using: &rng))
                reader.feed(bytes[offset..<end])
                offset = end
                while let packet = try reader.nextPacket() { read.append(packet) }
            }
            try reader.finishInput()
            #expect(read == whole)
        }
    }

    @Test("readHeaders exposes the head before any audio packet is taken")
    func headersFirst() throws {
        let bytes = try Self.write(Self.makePackets(count: 3))
        var reader = OggOpusReader()
        reader.feed(bytes.prefix(30))
        #expect(try reader.readHeaders() == false)
        reader.feed(bytes.dropFirst(30))
        #expect(try reader.readHeaders() == true)
        #expect(reader.head?.channelCount == 2)
        var count = 0
        while try reader.nextPacket() != nil { count += 1 }
        #expect(count == 3)
    }

    @Test("Copies of readers and writers are independent")
    func valueSemantics() throws {
        let packets = Self.makePackets(seed: 8, count: 60)
        let bytes = try Self.write(packets)
        var reader = OggOpusReader()
        reader.feed(bytes.prefix(bytes.count / 2))
        _ = try reader.nextPacket()
        var copy = reader
        copy.feed(bytes.dropFirst(bytes.count / 2))
        reader.feed(bytes.dropFirst(bytes.count / 2))
        var fromCopy: [OggOpusPacket] = []
        while let packet = try copy.nextPacket() { fromCopy.append(packet) }
        var fromOriginal: [OggOpusPacket] = []
        while let packet = try reader.nextPacket() { fromOriginal.append(packet) }
        #expect(fromCopy == fromOriginal && fromCopy.count == 59)

        var writer = try OggOpusWriter(channels: 1, serial: 42)
        var out = try writer.write(packet: packets[0].data, samples: packets[0].samples)
        var fork = writer
        var forked = out
        out += try writer.write(packet: packets[1].data, samples: packets[1].samples)
        out += writer.finish()
        forked += fork.finish()
        #expect(try OggOpusReader.read(out).packets.map(\.data) == [packets[0].data, packets[1].data])
        #expect(try OggOpusReader.read(forked).packets.map(\.data) == [packets[0].data])
    }

    @Test("A stream with no audio is still complete: the tags page carries EOS")
    func emptyStream() throws {
        var writer = try OggOpusWriter(channels: 1)
        let header = writer.flush()
        #expect(OggFixtures.pages(header)?.count == 1)
        let bytes = header + writer.finish()
        let pages = try #require(OggFixtures.pages(bytes))
        #expect(pages.count == 2 && pages[1].isEnd)
        #expect(try OggOpusReader.read(bytes).packets.isEmpty)
        #expect(writer.finish().isEmpty)
    }

    @Test("flush emits everything but the held-back packet")
    func flushHoldsOne() throws {
        var writer = try OggOpusWriter(channels: 1, serial: 1)
        var bytes = try writer.write(packet: [0xFC, 1], samples: 960)
        bytes += try writer.write(packet: [0xFC, 2], samples: 960)
        bytes += writer.flush()
        var reader = OggOpusReader()
        reader.feed(bytes)
        #expect(try reader.nextPacket()?.data == [0xFC, 1])
        #expect(try reader.nextPacket() == nil)
        reader.feed(writer.finish())
        let last = try #require(try reader.nextPacket())
        #expect(last.data == [0xFC, 2] && last.isEndOfStream && last.granulePosition == 1_920)
    }

    @Test("finish(trimming:) lowers the final granule, within the last packet and not below pre-skip")
    func endTrimming() throws {
        func finalGranule(packets: Int, trimming: Int, preSkip: Int = 312) throws -> Int64? {
            var writer = try OggOpusWriter(channels: 1, preSkip: preSkip)
            var bytes: [UInt8] = []
            for _ in 0..<packets { bytes += try writer.write(packet: [0xFC, 0], samples: 960) }
            bytes += writer.finish(trimming: trimming)
            #expect(writer.granulePosition == (try OggOpusReader.read(bytes).packets.last?.granulePosition ?? 0))
            return try OggOpusReader.read(bytes).packets.last?.granulePosition
        }
        #expect(try finalGranule(packets: 3, trimming: 0) == 2_880)
        #expect(try finalGranule(packets: 3, trimming: 500) == 2_380)
        #expect(try finalGranule(packets: 3, trimming: 5_000) == 1_920)  // at most the last packet
        #expect(try finalGranule(packets: 1, trimming: 900) == 312)  // not below pre-skip
        #expect(try finalGranule(packets: 3, trimming: -7) == 2_880)
    }

    @Test("The writer refuses bad arguments")
    func writerArguments() throws {
        var writer = try OggOpusWriter(channels: 2)
        #expect(throws: OggOpusError.invalidArgument("empty Opus packet")) {
            try writer.write(packet: [UInt8](), samples: 960)
        }
        #expect(throws: OggOpusError.invalidArgument("packet duration 6000 samples is not in 1...5760")) {
            try writer.write(packet: [0xFC], samples: 6_000)
        }
        #expect(throws: OggOpusError.invalidArgument("cannot tell the duration of a 1-byte packet from its TOC byte")) {
            try writer.write(packet: [0xFF])
        }
        #expect(try writer.write(packet: [0xFC, 0]).isEmpty == false)  // header pages come out
        #expect(writer.granulePosition == 960)
        _ = writer.finish()
        #expect(throws: OggOpusError.invalidArgument("packet written after finish()")) {
            try writer.write(packet: [0xFC], samples: 960)
        }
        #expect(throws: OggOpusError.invalidArgument("mapping family 0 allows 1 or 2 channels, not 3")) {
            try OggOpusWriter(channels: 3)
        }
        #expect(throws: OggOpusError.invalidArgument("maxPacketsPerPage 0 is not in 1...255")) {
            try OggOpusWriter(channels: 1, maxPacketsPerPage: 0)
        }
    }

    @Test("File writer and file reader, through a file and through a pipe")
    func files() throws {
        let packets = Self.makePackets(seed: 21, count: 50)
        let directory = try OggFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("a.opus").path
        let file = try OggOpusFileWriter(path: path, writer: OggOpusWriter(channels: 1, serial: 9))
        for packet in packets { try file.write(packet: packet.data, samples: packet.samples) }
        try file.finish()
        let (head, read) = try OggOpusReader.readFile(path: path)
        #expect(head.channelCount == 1)
        #expect(read.map(\.data) == packets.map(\.data))

        let pipe = Pipe()
        let writer = try OggOpusFileWriter(handle: pipe.fileHandleForWriting, writer: OggOpusWriter(channels: 1))
        for packet in packets.prefix(10) { try writer.write(packet: packet.data, samples: packet.samples) }
        try writer.finish()
        try pipe.fileHandleForWriting.close()
        let reader = OggOpusFileReader(handle: pipe.fileHandleForReading, chunkSize: 100)
        #expect(try reader.readHeaders().channelCount == 1)
        var fromPipe: [[UInt8]] = []
        while let packet = try reader.next() { fromPipe.append(packet.data) }
        #expect(fromPipe == packets.prefix(10).map(\.data))
        #expect(reader.reachedEndOfStream)

        #expect(throws: OggOpusError.self) {
            try OggOpusReader.readFile(path: directory.appendingPathComponent("missing").path)
        }
    }
}
