internal import COgg

/// Packs the packets of one logical Ogg bitstream into pages, using libogg.
///
/// Queue packets with `append`, then take finished pages as bytes: `pageOut` returns only
/// pages libogg considers full (about 4 KiB of body or 255 lacing values), `flush` returns
/// everything queued. libogg sets the beginning-of-stream flag on the first page, and the
/// end-of-stream flag on the page ending the packet appended with `endOfStream: true`.
///
/// A value type: copies are independent (libogg state is copied on write).
public struct OggStreamWriter: Sendable {
    private var stream: OggStreamBox

    /// The stream's serial number, written on every page.
    public let serial: Int32
    /// Packets appended so far.
    public private(set) var packetCount: Int64 = 0
    /// Whether the end-of-stream packet has been appended; nothing more may follow.
    public private(set) var isFinished = false

    /// Starts a logical stream with the given serial number.
    public init(serial: Int32) {
        self.serial = serial
        stream = OggStreamBox(serial: serial)
    }

    /// Queues one packet.
    ///
    /// - Parameters:
    ///   - granulePosition: the codec's position at the end of this packet; written into the
    ///     header of the page this packet ends, if it is the last packet ending there.
    ///   - endOfStream: marks the stream's final packet.
    /// - Throws: `.invalidArgument` after the end-of-stream packet; `.corrupt` if libogg failed
    ///   (it only does when memory runs out).
    public mutating func append(
        _ packet: some Collection<UInt8>, granulePosition: Int64, endOfStream: Bool = false
    ) throws(OggOpusError) {
        guard !isFinished else {
            throw .invalidArgument("packet appended after the end-of-stream packet")
        }
        makeUnique()
        var bytes = Array(packet)
        let result = bytes.withUnsafeMutableBufferPointer { buffer in
            var op = ogg_packet()
            op.packet = buffer.baseAddress
            op.bytes = buffer.count
            op.b_o_s = packetCount == 0 ? 1 : 0
            op.e_o_s = endOfStream ? 1 : 0
            op.granulepos = granulePosition
            op.packetno = packetCount
            return ogg_stream_packetin(stream.state, &op)
        }
        guard result == 0 else {
            throw .corrupt("libogg could not queue packet \(packetCount) (out of memory)")
        }
        packetCount += 1
        isFinished = endOfStream
    }

    /// Pages libogg has filled; empty if none is full yet.
    public mutating func pageOut() -> [UInt8] {
        drain { ogg_stream_pageout($0, $1) }
    }

    /// Every queued packet as pages, the last one possibly short; empty if nothing is queued.
    public mutating func flush() -> [UInt8] {
        drain { ogg_stream_flush($0, $1) }
    }

    private mutating func drain(
        _ next: (UnsafeMutablePointer<ogg_stream_state>, UnsafeMutablePointer<ogg_page>) -> Int32
    ) -> [UInt8] {
        makeUnique()
        var output: [UInt8] = []
        var page = ogg_page()
        while next(stream.state, &page) != 0 {
            output.append(contentsOf: UnsafeBufferPointer(start: page.header, count: page.header_len))
            output.append(contentsOf: UnsafeBufferPointer(start: page.body, count: page.body_len))
        }
        return output
    }

    private mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&stream) {
            stream = OggStreamBox(copying: stream)
        }
    }
}
