/// Why an Ogg or Ogg Opus stream could not be read or written.
///
/// Readers make errors sticky: once `nextPacket` has thrown, every later call throws the same
/// error. Lost or damaged pages are *not* errors: libogg skips bytes that fail the page CRC and
/// the reader counts them (`skippedBytes`, `holes`) and carries on with the next good page.
public enum OggOpusError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The input does not start with the Ogg capture pattern `OggS`.
    case notOgg
    /// The stream is Ogg but its first packet is not an `OpusHead` (another codec, or a stream
    /// joined mid-way); the text says what was found.
    case notOpus(String)
    /// The `OpusHead` packet is malformed.
    case badHead(String)
    /// The second packet is not a well-formed `OpusTags` packet.
    case badTags(String)
    /// Valid Ogg Opus that this implementation does not handle: more than two channels,
    /// multistream channel mappings, mapping families other than 0 and 1, or a newer major
    /// version of the header.
    case unsupported(String)
    /// A page with a second serial number: chained (one stream after another) or multiplexed
    /// (several at once) Ogg streams are not supported.
    case multipleStreams(firstSerial: Int32, otherSerial: Int32)
    /// libogg refused a page, or pages of the stream contradict each other.
    case corrupt(String)
    /// The input ended inside a page or packet, or before the headers were complete.
    case truncated(String)
    /// The caller passed something the writer cannot write (empty packet, bad sample count,
    /// a packet after `finish`, ...).
    case invalidArgument(String)
    /// Opening, reading or writing a file failed; the text is the system's reason.
    case io(String)

    public var description: String {
        switch self {
        case .notOgg: "not an Ogg stream (no OggS capture pattern at the start)"
        case .notOpus(let why): "not an Ogg Opus stream: \(why)"
        case .badHead(let why): "malformed OpusHead: \(why)"
        case .badTags(let why): "malformed OpusTags: \(why)"
        case .unsupported(let why): "unsupported Ogg Opus stream: \(why)"
        case .multipleStreams(let first, let other):
            "second Ogg stream (serial \(other), first was \(first)): chained or multiplexed streams are not supported"
        case .corrupt(let why): "corrupt Ogg stream: \(why)"
        case .truncated(let why): "truncated Ogg stream: \(why)"
        case .invalidArgument(let why): "invalid argument: \(why)"
        case .io(let why): "I/O error: \(why)"
        }
    }
}
