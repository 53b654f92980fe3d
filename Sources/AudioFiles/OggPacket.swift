/// One packet of a logical Ogg bitstream, as `OggStreamReader` returns it.
public struct OggPacket: Sendable, Equatable {
    /// The packet's bytes.
    public var data: [UInt8]
    /// The granule position of the page this packet ends, when it is the last packet completed
    /// on that page; `nil` otherwise (Ogg records one granule position per page).
    public var granulePosition: Int64?
    /// Whether this is the first packet of the stream (its page has the BOS flag).
    public var isBeginningOfStream: Bool
    /// Whether this is the last packet of the stream (the last packet of the EOS page).
    public var isEndOfStream: Bool
    /// libogg's running packet number, starting at 0. Jumps after a lost page.
    public var packetNumber: Int64

    /// Creates a packet value (readers make these; tests may too).
    public init(
        data: [UInt8], granulePosition: Int64?, isBeginningOfStream: Bool = false,
        isEndOfStream: Bool = false, packetNumber: Int64
    ) {
        self.data = data
        self.granulePosition = granulePosition
        self.isBeginningOfStream = isBeginningOfStream
        self.isEndOfStream = isEndOfStream
        self.packetNumber = packetNumber
    }
}
