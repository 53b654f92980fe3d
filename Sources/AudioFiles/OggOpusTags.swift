/// The comment header of an Ogg Opus stream, `OpusTags` (RFC 7845 §5.2): the second packet.
public struct OpusTags: Sendable, Equatable {
    /// The packet's first eight bytes, `OpusTags`.
    public static let magic: [UInt8] = Array("OpusTags".utf8)

    /// Who wrote the stream (e.g. "libopus 1.3.1" or "pttrelay").
    public var vendor: String
    /// User comments, conventionally `NAME=value` (e.g. `TITLE=net 3`, `ENCODER=opusenc`).
    public var comments: [String]

    /// Creates tags to write.
    public init(vendor: String, comments: [String] = []) {
        self.vendor = vendor
        self.comments = comments
    }

    /// Parses an `OpusTags` packet. Strings that are not valid UTF-8 are repaired, not refused;
    /// bytes after the last comment (allowed by RFC 7845) are ignored.
    ///
    /// - Throws: `.badTags` for wrong magic or lengths running past the packet.
    public init(parsing packet: some Collection<UInt8>) throws(OggOpusError) {
        let bytes = Array(packet)
        guard bytes.starts(with: Self.magic) else {
            throw .badTags("does not start with \"OpusTags\"")
        }
        var offset = 8
        func string(_ what: String) throws(OggOpusError) -> String {
            guard bytes.count - offset >= 4 else { throw .badTags("packet ends before the \(what) length") }
            let length = Int(LittleEndianBytes.uint32(bytes, at: offset))
            offset += 4
            guard bytes.count - offset >= length else {
                throw .badTags("\(what) of \(length) bytes runs past the end of the \(bytes.count)-byte packet")
            }
            defer { offset += length }
            return String(decoding: bytes[offset..<(offset + length)], as: UTF8.self)
        }
        vendor = try string("vendor string")
        guard bytes.count - offset >= 4 else { throw .badTags("packet ends before the comment count") }
        let count = Int(LittleEndianBytes.uint32(bytes, at: offset))
        offset += 4
        guard count <= (bytes.count - offset) / 4 else {
            throw .badTags("\(count) comments cannot fit in the \(bytes.count - offset) bytes left")
        }
        var comments: [String] = []
        comments.reserveCapacity(count)
        for index in 0..<count {
            comments.append(try string("comment \(index)"))
        }
        self.comments = comments
    }

    /// The `OpusTags` packet.
    public func serialized() -> [UInt8] {
        var bytes = Self.magic
        func append(_ string: String) {
            let utf8 = Array(string.utf8)
            LittleEndianBytes.append(UInt32(truncatingIfNeeded: utf8.count), to: &bytes)
            bytes.append(contentsOf: utf8)
        }
        append(vendor)
        LittleEndianBytes.append(UInt32(truncatingIfNeeded: comments.count), to: &bytes)
        comments.forEach(append)
        return bytes
    }
}
