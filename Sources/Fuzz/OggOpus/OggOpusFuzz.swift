import AudioFiles
import OpusPacketFormat

/// The Ogg Opus reader (libogg paging plus OpusHead/OpusTags parsing).
///
/// Inputs of even length get their Ogg page CRCs fixed first (see ``OggPageCRC``), so the fuzzer
/// reaches the header and packet logic instead of stopping at the checksum; odd lengths are read
/// as they are, for the resynchronisation path. The input is read twice, whole and in 7-byte
/// chunks with packets taken between feeds, and both readings must agree (`skippedBytes` only when
/// the stream was read to a clean end: libogg looks at junk only once 27 bytes are buffered, so
/// how much it skipped before an error depends on the chunking).
enum OggOpusFuzz {
    struct Reading: Equatable {
        var packets: [OggOpusPacket] = []
        var head: OpusHead?
        var tags: OpusTags?
        var failed = false
        var holes = 0
        var skippedBytes = 0

        static func == (a: Reading, b: Reading) -> Bool {
            a.packets == b.packets && a.head == b.head && a.tags == b.tags && a.failed == b.failed
                && a.holes == b.holes && (a.failed || a.skippedBytes == b.skippedBytes)
        }
    }

    static func run(_ input: UnsafeRawBufferPointer) {
        var bytes = [UInt8](input)
        if bytes.count % 2 == 0 { OggPageCRC.fix(&bytes) }
        let whole = read(bytes, chunk: max(bytes.count, 1))
        let chunked = read(bytes, chunk: 7)
        precondition(whole == chunked, "reading in chunks gave a different result")
        if let head = whole.head {
            precondition((try? OpusHead(parsing: head.serialized())) == head, "OpusHead does not round-trip")
        }
        if let tags = whole.tags {
            precondition((try? OpusTags(parsing: tags.serialized())) == tags, "OpusTags does not round-trip")
        }
        for packet in whole.packets {
            if let samples = packet.sampleCount { precondition((1...OpusFraming.maxSamples).contains(samples)) }
        }
    }

    static func read(_ bytes: [UInt8], chunk: Int) -> Reading {
        var reader = OggOpusReader()
        var reading = Reading()
        var offset = 0
        do {
            repeat {
                let end = min(offset + chunk, bytes.count)
                reader.feed(bytes[offset..<end])
                offset = end
                while let packet = try reader.nextPacket() { reading.packets.append(packet) }
            } while offset < bytes.count
            try reader.finishInput()
        } catch {
            reading.failed = true
        }
        reading.head = reader.head
        reading.tags = reader.tags
        reading.holes = reader.holes
        reading.skippedBytes = reader.skippedBytes
        return reading
    }
}
