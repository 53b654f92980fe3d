import Foundation

/// Reads Ogg Opus packets from a file or a pipe (e.g. standard input), a chunk at a time.
///
/// ```swift
/// let reader = OggOpusFileReader(handle: .standardInput)
/// let head = try reader.readHeaders()
/// while let packet = try reader.next() { ... }
/// ```
///
/// Reads block the calling thread: use it from a thread or task that may block.
public final class OggOpusFileReader {
    private var input: ChunkedInput
    private var reader = OggOpusReader()

    /// Opens a file for reading.
    ///
    /// - Throws: `.io` with the system's reason if it cannot be opened.
    public convenience init(path: String, chunkSize: Int = 4_096) throws(OggOpusError) {
        do {
            try self.init(handle: FileHandle(forReadingFrom: URL(fileURLWithPath: path)), chunkSize: chunkSize)
        } catch {
            throw .io("cannot open \(path): \(error.localizedDescription)")
        }
    }

    /// Reads from an open handle, e.g. `FileHandle.standardInput`, from its current position.
    public init(handle: FileHandle, chunkSize: Int = 4_096) {
        self.input = ChunkedInput(handle: handle, chunkSize: chunkSize)
    }

    /// The identification header, once read (after `readHeaders` or the first `next`).
    public var head: OpusHead? { reader.head }
    /// The comment header, once read.
    public var tags: OpusTags? { reader.tags }
    /// Bytes skipped over damaged pages or junk (see `OggStreamReader`).
    public var skippedBytes: Int { reader.skippedBytes }
    /// Gaps in the packet sequence caused by lost or damaged pages.
    public var holes: Int { reader.holes }
    /// Whether the end-of-stream page has been read.
    public var reachedEndOfStream: Bool { reader.reachedEndOfStream }

    /// Reads until both headers are parsed.
    ///
    /// - Throws: any `OggOpusReader` error; `.truncated` if the input ends first; `.io`.
    public func readHeaders() throws(OggOpusError) -> OpusHead {
        while try !reader.readHeaders() {
            guard try readChunk() else {
                try reader.finishInput()
                throw .truncated("input ended before the headers")  // finishInput throws first
            }
        }
        return reader.head!
    }

    /// The next audio packet, or `nil` at the end of the input.
    ///
    /// - Throws: any `OggOpusReader` error, including `.truncated` at the end of an input that
    ///   stopped inside a page; `.io` if reading fails.
    public func next() throws(OggOpusError) -> OggOpusPacket? {
        while true {
            if let packet = try reader.nextPacket() {
                return packet
            }
            guard try readChunk() else {
                try reader.finishInput()
                return nil
            }
        }
    }

    /// Feeds the next chunk; `false` at end of input.
    private func readChunk() throws(OggOpusError) -> Bool {
        let data: Data?
        do { data = try input.next() } catch { throw .io(error.reason) }
        guard let data else { return false }
        reader.feed(data)
        return true
    }
}

extension OggOpusReader {
    /// Reads a whole Ogg Opus file.
    ///
    /// - Throws: `.io` if the file cannot be read, or any reader error (including `.truncated`).
    public static func readFile(path: String) throws(OggOpusError) -> (head: OpusHead, packets: [OggOpusPacket]) {
        let file = try OggOpusFileReader(path: path)
        let head = try file.readHeaders()
        var packets: [OggOpusPacket] = []
        while let packet = try file.next() {
            packets.append(packet)
        }
        return (head, packets)
    }
}
