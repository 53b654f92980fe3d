internal import COgg

/// Splits an Ogg byte stream into the packets of its one logical bitstream, using libogg.
///
/// Streaming: `feed` bytes as they arrive (any chunking, down to one byte at a time), then call
/// `nextPacket` until it returns `nil` (it needs more input). At the end of the input, call
/// `finishInput` to learn whether the stream stopped mid-page.
///
/// Policy:
/// - The input must begin with a page (`OggS`); anything else is `.notOgg`.
/// - The first page must be a beginning-of-stream page; a page with another serial number is
///   `.multipleStreams` (chained and multiplexed streams are not supported).
/// - A page failing its CRC, and junk between pages, is skipped by libogg, not fatal: the bytes
///   are counted in `skippedBytes`, and the gap it leaves in the packet sequence in `holes`.
/// - Errors are sticky: after one throw, every call throws the same error.
///
/// A value type: copies are independent (libogg state is copied on write).
public struct OggStreamReader: Sendable {
    private static let capturePattern: [UInt8] = Array("OggS".utf8)

    private var sync = OggSyncBox()
    private var stream: OggStreamBox?
    private var prefix: [UInt8] = []
    private var failure: OggOpusError?

    /// The serial number of the logical stream, once its first page has been read.
    public private(set) var serial: Int32?
    /// Bytes libogg discarded while looking for pages: junk, and pages whose CRC failed.
    public private(set) var skippedBytes = 0
    /// Gaps in the packet sequence (lost or damaged pages); packets spanning them are dropped.
    public private(set) var holes = 0
    /// Pages accepted so far.
    public private(set) var pageCount = 0
    /// Whether the page with the end-of-stream flag has been read.
    public private(set) var reachedEndOfStream = false

    /// Creates a reader with no input yet.
    public init() {}

    /// Appends input bytes. Never fails; problems surface from `nextPacket`.
    public mutating func feed(_ bytes: some Collection<UInt8>) {
        guard !bytes.isEmpty, failure == nil else { return }
        if prefix.count < 4 {
            prefix.append(contentsOf: bytes.prefix(4 - prefix.count))
        }
        makeUnique()
        var index = bytes.startIndex
        while index != bytes.endIndex {
            // ogg_sync_buffer takes a long but keeps sizes in ints: hand it modest pieces.
            let end = bytes.index(index, offsetBy: 1 << 16, limitedBy: bytes.endIndex) ?? bytes.endIndex
            let chunk = bytes[index..<end]
            let count = chunk.count
            guard let buffer = ogg_sync_buffer(sync.state, count) else {
                failure = .corrupt("libogg could not grow its input buffer (out of memory)")
                return
            }
            let destination = UnsafeMutableRawPointer(buffer)
            let copied: Void? = chunk.withContiguousStorageIfAvailable { source in
                destination.copyMemory(from: source.baseAddress!, byteCount: count)
            }
            if copied == nil {
                Array(chunk).withUnsafeBytes { source in
                    destination.copyMemory(from: source.baseAddress!, byteCount: count)
                }
            }
            ogg_sync_wrote(sync.state, count)
            index = end
        }
    }

    /// The next complete packet, or `nil` when more input is needed.
    ///
    /// - Throws: `.notOgg`, `.multipleStreams`, `.corrupt`; see the type's policy.
    public mutating func nextPacket() throws(OggOpusError) -> OggPacket? {
        if let failure { throw failure }
        do {
            return try step()
        } catch {
            failure = error
            throw error
        }
    }

    /// Checks that the input ended cleanly. Call at end of input, after `nextPacket` returned `nil`.
    ///
    /// A stream without an end-of-stream page (a recording cut off at a page boundary) is not
    /// an error here; see `reachedEndOfStream`.
    ///
    /// - Throws: `.truncated` for empty input, a partial page or a packet whose continuation
    ///   never came; `.notOgg` for input shorter than a capture pattern that is not one.
    public mutating func finishInput() throws(OggOpusError) {
        if let failure { throw failure }
        if prefix.isEmpty {
            throw .truncated("the input is empty")
        }
        guard prefix.count == 4 else {
            if Self.capturePattern.starts(with: prefix) {
                throw .truncated("input ended inside the first page header")
            }
            throw .notOgg
        }
        dropJunkTail()
        let pending = cogg_sync_pending(sync.state)
        if pageCount == 0 {
            throw .truncated(
                pending > 0 ? "input ended before the first page was complete" : "no valid Ogg page in the input")
        }
        if pending > 0 {
            throw .truncated("input ended inside a page (\(pending) bytes of it)")
        }
        if let stream, cogg_stream_has_partial_packet(stream.state) != 0 {
            throw .truncated("input ended inside a packet continued on a page that never came")
        }
    }

    private mutating func step() throws(OggOpusError) -> OggPacket? {
        guard prefix.count == 4 else { return nil }
        guard prefix == Self.capturePattern else { throw .notOgg }
        makeUnique()
        while true {
            if let stream {
                var packet = ogg_packet()
                let result = ogg_stream_packetout(stream.state, &packet)
                if result > 0 {
                    return OggPacket(
                        data: Array(UnsafeBufferPointer(start: packet.packet, count: packet.bytes)),
                        granulePosition: packet.granulepos >= 0 ? packet.granulepos : nil,
                        isBeginningOfStream: packet.b_o_s != 0,
                        isEndOfStream: packet.e_o_s != 0,
                        packetNumber: packet.packetno
                    )
                }
                if result < 0 {
                    holes += 1
                    continue
                }
            }
            var page = ogg_page()
            let found = ogg_sync_pageseek(sync.state, &page)
            if found < 0 {
                skippedBytes += -found
                continue
            }
            if found == 0 {
                return nil
            }
            try accept(&page)
        }
    }

    private mutating func accept(_ page: inout ogg_page) throws(OggOpusError) {
        let pageSerial = ogg_page_serialno(&page)
        let target: OggStreamBox
        if let stream, let serial {
            guard pageSerial == serial else {
                throw .multipleStreams(firstSerial: serial, otherSerial: pageSerial)
            }
            guard !reachedEndOfStream else {
                throw .corrupt("page \(ogg_page_pageno(&page)) follows the end-of-stream page")
            }
            target = stream
        } else {
            guard ogg_page_bos(&page) != 0 else {
                throw .corrupt("the first page is not a beginning-of-stream page (stream joined mid-way?)")
            }
            target = OggStreamBox(serial: pageSerial)
            stream = target
            serial = pageSerial
        }
        guard ogg_page_version(&page) == 0 else {
            throw .corrupt("page version \(ogg_page_version(&page)) (only 0 exists)")
        }
        guard ogg_stream_pagein(target.state, &page) == 0 else {
            throw .corrupt("libogg rejected page \(ogg_page_pageno(&page))")
        }
        pageCount += 1
        if ogg_page_eos(&page) != 0 {
            reachedEndOfStream = true
        }
    }

    /// At the end of the input, counts the bytes libogg holds that cannot begin a page as skipped
    /// junk, and drops them. libogg looks at buffered bytes only once 27 are there, so without this a
    /// junk tail shorter than that was either skipped or reported as a truncated page depending on
    /// how the input happened to be chunked. Kept: everything once libogg has checked a page header
    /// there (the body is missing), else the bytes from the first place a capture pattern starts,
    /// or a prefix of one that the end of the input cut off.
    private mutating func dropJunkTail() {
        makeUnique()
        let state = sync.state
        let pending = Int(state.pointee.fill) - Int(state.pointee.returned)
        guard pending > 0, state.pointee.headerbytes == 0, let data = state.pointee.data else { return }
        let tail = UnsafeBufferPointer(start: data + Int(state.pointee.returned), count: pending)
        let junk = tail.indices.first { Self.capturePattern.starts(with: tail[$0...].prefix(4)) } ?? pending
        state.pointee.returned += Int32(junk)
        skippedBytes += junk
    }

    private mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&sync) {
            sync = OggSyncBox(copying: sync)
        }
        if var box = stream {
            stream = nil
            if !isKnownUniquelyReferenced(&box) {
                box = OggStreamBox(copying: box)
            }
            stream = box
        }
    }
}
