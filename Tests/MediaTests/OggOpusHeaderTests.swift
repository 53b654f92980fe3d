import AudioFiles
import Opus
import Testing

@Suite("OpusHead, OpusTags and TOC durations")
struct OggOpusHeaderTests {
    @Test("OpusHead family 0 serializes to the RFC 7845 layout and parses back")
    func headFamilyZero() throws {
        let head = try OpusHead(channelCount: 2, preSkip: 312, inputSampleRate: 44_100, outputGain: -256)
        let bytes = head.serialized()
        #expect(
            bytes == Array("OpusHead".utf8) + [1, 2, 0x38, 0x01, 0x44, 0xAC, 0x00, 0x00, 0x00, 0xFF, 0])
        let parsed = try OpusHead(parsing: bytes)
        #expect(parsed == head)
        #expect(parsed.preSkip == 312 && parsed.inputSampleRate == 44_100 && parsed.outputGain == -256)
        #expect(parsed.channelTable == nil)
    }

    @Test("OpusHead family 1 with one stereo stream is accepted with its table")
    func headFamilyOne() throws {
        let bytes = Array("OpusHead".utf8) + [1, 2, 0, 0, 0x80, 0xBB, 0, 0, 0, 0, 1, 1, 1, 1, 0]
        let head = try OpusHead(parsing: bytes)
        #expect(head.mappingFamily == 1)
        #expect(head.channelTable == OpusChannelTable(streamCount: 1, coupledCount: 1, mapping: [1, 0]))
        #expect(head.serialized() == bytes)
        let made = try OpusHead(channelCount: 1, mappingFamily: 1)
        #expect(made.channelTable == OpusChannelTable(streamCount: 1, coupledCount: 0, mapping: [0]))
        #expect(try OpusHead(parsing: made.serialized()) == made)
    }

    @Test("OpusHead: minor versions are accepted, trailing bytes ignored")
    func headVersions() throws {
        var bytes = try OpusHead(channelCount: 1).serialized()
        bytes[8] = 15
        #expect(try OpusHead(parsing: bytes + [9, 9, 9]).version == 15)
    }

    static let magic: [UInt8] = Array("OpusHead".utf8)
    static let headCases: [([UInt8], OggOpusError)] = {
        let m = magic
        var cases: [([UInt8], OggOpusError)] = []
        cases.append(
            (Array("OpusHeaX".utf8) + [1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0], .badHead("does not start with \"OpusHead\"")))
        cases.append((m + [1, 1, 0, 0], .badHead("12 bytes; at least 19 are needed")))
        cases.append(
            (
                m + [0x10, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0],
                .unsupported("OpusHead version 16 (major version 1; only 0 is known)")
            ))
        cases.append((m + [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], .badHead("channel count 0")))
        cases.append(
            (m + [1, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0], .badHead("mapping family 0 allows 1 or 2 channels, not 3")))
        cases.append(
            (
                m + [1, 6, 0, 0, 0, 0, 0, 0, 0, 0, 1, 4, 2, 0, 4, 1, 2, 3, 5],
                .unsupported("6 channels; only mono and stereo are supported")
            ))
        cases.append(
            (
                m + [1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 0, 0, 1],
                .unsupported("multistream layout (2 Opus streams per packet)")
            ))
        cases.append(
            (
                m + [1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 0, 2],
                .badHead("channel table entry 2 but only 2 decoded channels")
            ))
        cases.append(
            (
                m + [1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1],
                .badHead("mapping family 1 needs a 2-channel table; the packet is 21 bytes")
            ))
        cases.append(
            (
                m + [1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 255],
                .unsupported("channel mapping family 255; only 0 and 1 are supported")
            ))
        return cases
    }()

    @Test("OpusHead rejections say why", arguments: headCases)
    func headRejections(bytes: [UInt8], expected: OggOpusError) {
        #expect(throws: expected) { try OpusHead(parsing: bytes) }
        // Descriptions are meant for people: they carry the reason.
        #expect(expected.description.contains("OpusHead") || expected.description.contains("Opus"))
    }

    @Test("OpusHead construction validates its arguments")
    func headArguments() {
        #expect(throws: OggOpusError.invalidArgument("mapping family 0 allows 1 or 2 channels, not 3")) {
            try OpusHead(channelCount: 3)
        }
        #expect(throws: OggOpusError.invalidArgument("pre-skip 70000 is not in 0...65535")) {
            try OpusHead(channelCount: 1, preSkip: 70_000)
        }
        #expect(throws: OggOpusError.unsupported("4 channels; only mono and stereo are supported")) {
            try OpusHead(channelCount: 4, mappingFamily: 1)
        }
    }

    @Test("OpusTags round trip, including non-ASCII text and no comments")
    func tagsRoundTrip() throws {
        for tags in [
            OpusTags(vendor: "pttrelay", comments: ["TITLE=net 3", "ARTIST=Zoë", "EMPTY="]),
            OpusTags(vendor: "", comments: []),
        ] {
            #expect(try OpusTags(parsing: tags.serialized()) == tags)
        }
        let bytes = OpusTags(vendor: "v", comments: ["A=b"]).serialized()
        #expect(bytes == Array("OpusTags".utf8) + [1, 0, 0, 0, 0x76, 1, 0, 0, 0, 3, 0, 0, 0, 0x41, 0x3D, 0x62])
        // Padding after the comments is allowed.
        #expect(try OpusTags(parsing: bytes + [0, 0]).comments == ["A=b"])
    }

    @Test("OpusTags with lengths running past the packet are refused, not trusted")
    func tagsRejections() {
        let good = OpusTags(vendor: "vendor", comments: ["A=1", "B=2"]).serialized()
        for cut in 8..<good.count where cut != good.count {
            #expect(throws: OggOpusError.self) { try OpusTags(parsing: good.prefix(cut)) }
        }
        let hugeCount = Array("OpusTags".utf8) + [0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0x7F]
        #expect(throws: OggOpusError.badTags("2147483647 comments cannot fit in the 0 bytes left")) {
            try OpusTags(parsing: hugeCount)
        }
        let hugeVendor = Array("OpusTags".utf8) + [0xFF, 0xFF, 0xFF, 0xFF]
        #expect(
            throws: OggOpusError.badTags("vendor string of 4294967295 bytes runs past the end of the 12-byte packet")
        ) {
            try OpusTags(parsing: hugeVendor)
        }
        #expect(throws: OggOpusError.badTags("does not start with \"OpusTags\"")) {
            try OpusTags(parsing: Array("OpusHead".utf8))
        }
    }

    @Test("TOC durations agree with libopus for every TOC byte and frame count")
    func tocAgreesWithLibopus() {
        for toc in 0...255 {
            let code = toc & 3
            let counts = code == 3 ? Array(0...63) : [0]
            for count in counts {
                // A packet libopus's parser accepts: CBR code 3 frames need equal sizes.
                var packet: [UInt8] = [UInt8(toc)]
                switch code {
                case 0: packet += [0xAA]
                case 1: packet += [0xAA, 0xBB]
                case 2: packet += [1, 0xAA, 0xBB]
                default: packet += [UInt8(count)] + Array(repeating: 0xAA, count: count)
                }
                let ours = OggOpusPacket.sampleCount(of: packet)
                let theirs = try? OpusPacket.validate(packet).totalSamples
                #expect(
                    ours == theirs,
                    "TOC \(toc) frames \(count): ours \(String(describing: ours)), libopus \(String(describing: theirs))"
                )
            }
        }
        #expect(OggOpusPacket.sampleCount(of: [UInt8]()) == nil)
        #expect(OggOpusPacket.sampleCount(of: [UInt8(3)]) == nil)
        #expect(OggOpusPacket(data: [0xFC, 0x00]).sampleCount == 960)
    }
}
