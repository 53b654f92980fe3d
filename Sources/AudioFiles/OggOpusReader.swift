/// Reads an Ogg Opus stream (RFC 7845) incrementally: bytes in, Opus packets out.
///
/// ```swift
/// var reader = OggOpusReader()
/// reader.feed(chunk)
/// while let packet = try reader.nextPacket() { ... }   // nil: feed more
/// // at end of input:
/// try reader.finishInput()
/// ```
///
/// The first two packets, `OpusHead` and `OpusTags`, are consumed internally and exposed as
/// `head` and `tags`; `nextPacket` returns audio packets only. Paging, CRCs and lost pages are
/// handled by `OggStreamReader` (libogg), whose policy applies: damaged pages are skipped and
/// counted (`skippedBytes`, `holes`), not fatal; chained or multiplexed streams are refused.
/// Errors are sticky.
///
/// A value type: copies are independent.
public struct OggOpusReader: Sendable {
    private enum Stage: Sendable { case head, tags, audio }

    private var ogg = OggStreamReader()
    private var stage = Stage.head
    private var failure: OggOpusError?

    /// The identification header, once read.
    public private(set) var head: OpusHead?
    /// The comment header (vendor and `NAME=value` comments), once read.
    public private(set) var tags: OpusTags?

    /// Bytes skipped while resynchronising (junk, pages with a bad CRC).
    public var skippedBytes: Int { ogg.skippedBytes }
    /// Gaps in the packet sequence caused by lost or damaged pages.
    public var holes: Int { ogg.holes }
    /// Whether the end-of-stream page has been read.
    public var reachedEndOfStream: Bool { ogg.reachedEndOfStream }
    /// The Ogg serial number of the stream, once its first page has been read.
    public var serial: Int32? { ogg.serial }

    /// Creates a reader with no input yet.
    public init() {}

    /// Appends input bytes (any chunking). Never fails; problems surface from `nextPacket`.
    public mutating func feed(_ bytes: some Collection<UInt8>) {
        ogg.feed(bytes)
    }

    /// Reads as far as the end of the headers without consuming any audio packet.
    ///
    /// - Returns: `true` once `head` and `tags` are both available, `false` if more input is needed.
    /// - Throws: as `nextPacket`.
    public mutating func readHeaders() throws(OggOpusError) -> Bool {
        while stage != .audio {
            guard let packet = try nextOggPacket() else { return false }
            try header(packet)
        }
        return true
    }

    /// The next audio packet, or `nil` when more input is needed.
    ///
    /// - Throws: `.notOgg`, `.notOpus` (first packet is not `OpusHead`), `.badHead`,
    ///   `.unsupported`, `.badTags`, `.multipleStreams`, `.corrupt`.
    public mutating func nextPacket() throws(OggOpusError) -> OggOpusPacket? {
        guard try readHeaders(), let packet = try nextOggPacket() else { return nil }
        return OggOpusPacket(
            data: packet.data, granulePosition: packet.granulePosition, isEndOfStream: packet.isEndOfStream)
    }

    /// Checks that the input ended cleanly; call at end of input after `nextPacket` returned `nil`.
    ///
    /// A missing end-of-stream page alone is not an error (see `reachedEndOfStream`): a
    /// recording that was cut off at a page boundary is still usable.
    ///
    /// - Throws: `.truncated` if the input stopped inside a page or packet or before both
    ///   headers, or the error `nextPacket` threw.
    public mutating func finishInput() throws(OggOpusError) {
        if let failure { throw failure }
        try ogg.finishInput()
        switch stage {
        case .head: throw .truncated("input ended before the OpusHead packet")
        case .tags: throw .truncated("input ended before the OpusTags packet")
        case .audio: break
        }
    }

    /// Reads a whole in-memory Ogg Opus stream.
    ///
    /// - Throws: any reader error, including `.truncated`.
    public static func read(
        _ bytes: some Collection<UInt8>
    ) throws(OggOpusError) -> (head: OpusHead, packets: [OggOpusPacket]) {
        var reader = OggOpusReader()
        reader.feed(bytes)
        var packets: [OggOpusPacket] = []
        while let packet = try reader.nextPacket() {
            packets.append(packet)
        }
        try reader.finishInput()
        return (reader.head!, packets)
    }

    private mutating func nextOggPacket() throws(OggOpusError) -> OggPacket? {
        if let failure { throw failure }
        do throws(OggOpusError) {
            return try ogg.nextPacket()
        } catch {
            failure = error
            throw error
        }
    }

    private mutating func header(_ packet: OggPacket) throws(OggOpusError) {
        do throws(OggOpusError) {
            switch stage {
            case .head:
                guard packet.data.starts(with: OpusHead.magic) else {
                    throw OggOpusError.notOpus("the first packet starts with \(Self.describe(packet.data.prefix(8)))")
                }
                head = try OpusHead(parsing: packet.data)
                stage = .tags
            case .tags:
                guard packet.data.starts(with: OpusTags.magic) else {
                    throw OggOpusError.badTags(
                        "the second packet starts with \(Self.describe(packet.data.prefix(8))), not \"OpusTags\"")
                }
                tags = try OpusTags(parsing: packet.data)
                stage = .audio
            case .audio:
                break
            }
        } catch {
            failure = error
            throw error
        }
    }

    /// A short, printable rendering of a packet prefix for error messages.
    private static func describe(_ bytes: ArraySlice<UInt8>) -> String {
        if bytes.isEmpty { return "nothing (empty packet)" }
        if bytes.allSatisfy({ (0x20..<0x7F).contains($0) }) {
            return "\"" + String(decoding: bytes, as: UTF8.self) + "\""
        }
        return "bytes "
            + bytes.map { byte in
                let hex = String(byte, radix: 16)
                return hex.count == 1 ? "0" + hex : hex
            }.joined(separator: " ")
    }
}
