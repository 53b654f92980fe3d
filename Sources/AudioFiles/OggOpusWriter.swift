import OpusPacketFormat

/// Writes an Ogg Opus stream (RFC 7845): packets in, page bytes out.
///
/// Layout: the `OpusHead` packet alone on the first page (granule 0), the `OpusTags` packet on
/// its own page(s), then one Opus packet per Ogg packet. Each page's granule position counts
/// every 48 kHz sample decoded from the start of the stream up to the end of the last packet
/// completed on it (RFC 7845 §4): the pre-skip samples are *included* in that count, not added
/// to it, so playback length = final granule − pre-skip. That matches opusenc and what
/// opusinfo/opusdec expect; `finish(trimming:)` can lower the final granule to drop padding.
///
/// Output: every mutating call returns the bytes that became ready, to append to the file or
/// stream in order (often empty). The first call also returns the header page(s).
///
/// Paging: a page is closed after `maxPacketsPerPage` packets or `maxSamplesPerPage` samples
/// (20 packets / 1 s by default), or sooner when libogg fills one, so a file being written is
/// playable up to a recent point. To mark the last packet end-of-stream, the writer holds back
/// the most recent packet (and the tags until the first packet) until the next `write` or
/// `finish`; `flush` therefore emits everything except that one packet.
///
/// A value type: copies are independent.
public struct OggOpusWriter: Sendable {
    /// The identification header written on the first page.
    public let head: OpusHead
    /// The comment header written on the second page.
    public let tags: OpusTags
    /// A page is closed once it holds this many packets.
    public var maxPacketsPerPage: Int { page.maxPackets }
    /// A page is closed once it holds this many 48 kHz samples of audio.
    public var maxSamplesPerPage: Int { page.maxSamples }

    /// The granule position after the last packet written: all 48 kHz samples so far
    /// (pre-skip included, as in RFC 7845).
    public private(set) var granulePosition: Int64
    /// Audio packets written so far.
    public private(set) var packetCount = 0
    /// Whether `finish` has been called.
    public private(set) var isFinished = false

    /// The Ogg serial number on every page.
    public var serial: Int32 { ogg.serial }

    private var ogg: OggStreamWriter
    private var pending: [UInt8]
    private var tagsQueued = false
    private var held: HeldPacket?
    private var page: PageFill

    /// Creates a writer for a mono or stereo stream with channel mapping family 0.
    ///
    /// - Parameters:
    ///   - channels: 1 or 2.
    ///   - preSkip: decoder samples (48 kHz) to discard at the start; 312 suits libopus.
    ///   - inputSampleRate: the original rate, for players to resample to (informational).
    ///   - outputGain: Q7.8 dB gain for playback.
    ///   - serial: the Ogg serial number; random by default.
    ///   - vendor: the `OpusTags` vendor string.
    ///   - comments: `NAME=value` comments.
    ///   - maxPacketsPerPage: close a page after this many packets (1...255).
    ///   - maxSamplesPerPage: close a page after this much audio (at least 1).
    /// - Throws: `.invalidArgument` or `.unsupported` for values `OpusHead` refuses.
    public init(
        channels: Int, preSkip: Int = 312, inputSampleRate: Int = 48_000, outputGain: Int16 = 0,
        serial: Int32 = .random(in: .min ... .max), vendor: String = "pttrelay", comments: [String] = [],
        maxPacketsPerPage: Int = 20, maxSamplesPerPage: Int = 48_000
    ) throws(OggOpusError) {
        try self.init(
            head: OpusHead(
                channelCount: channels, preSkip: preSkip, inputSampleRate: inputSampleRate, outputGain: outputGain),
            tags: OpusTags(vendor: vendor, comments: comments), serial: serial,
            maxPacketsPerPage: maxPacketsPerPage, maxSamplesPerPage: maxSamplesPerPage)
    }

    /// Creates a writer from ready-made headers.
    ///
    /// - Throws: `.invalidArgument` for page limits out of range.
    public init(
        head: OpusHead, tags: OpusTags, serial: Int32 = .random(in: .min ... .max),
        maxPacketsPerPage: Int = 20, maxSamplesPerPage: Int = 48_000
    ) throws(OggOpusError) {
        guard (1...255).contains(maxPacketsPerPage) else {
            throw .invalidArgument("maxPacketsPerPage \(maxPacketsPerPage) is not in 1...255")
        }
        guard maxSamplesPerPage >= 1 else {
            throw .invalidArgument("maxSamplesPerPage \(maxSamplesPerPage) is not positive")
        }
        self.head = head
        self.tags = tags
        page = PageFill(maxPackets: maxPacketsPerPage, maxSamples: maxSamplesPerPage)
        granulePosition = 0
        ogg = OggStreamWriter(serial: serial)
        // OpusHead must be alone on the first page: queue and flush it at once.
        try ogg.append(head.serialized(), granulePosition: 0)
        pending = ogg.flush()
    }

    /// Adds one Opus packet.
    ///
    /// - Parameters:
    ///   - packet: one Opus packet (not validated beyond being non-empty).
    ///   - samples: its duration in 48 kHz samples per channel, 1...5760 (Opus packets are 120...5760).
    /// - Returns: page bytes now ready (possibly none).
    /// - Throws: `.invalidArgument` for an empty packet, a bad duration, or a write after `finish`.
    public mutating func write(packet: some Collection<UInt8>, samples: Int) throws(OggOpusError) -> [UInt8] {
        guard !isFinished else { throw .invalidArgument("packet written after finish()") }
        guard !packet.isEmpty else { throw .invalidArgument("empty Opus packet") }
        guard (1...OpusFraming.maxSamples).contains(samples) else {
            throw .invalidArgument("packet duration \(samples) samples is not in 1...\(OpusFraming.maxSamples)")
        }
        var output = try queueTags()
        if let held {
            try ogg.append(held.data, granulePosition: held.granule)
            if page.add(samples: held.samples) {
                output += ogg.flush()
                page.reset()
            } else {
                let pages = ogg.pageOut()
                if !pages.isEmpty {
                    page.reset()
                    output += pages
                }
            }
        }
        granulePosition += Int64(samples)
        packetCount += 1
        held = HeldPacket(data: Array(packet), granule: granulePosition, samples: samples)
        return output
    }

    /// Adds one Opus packet, taking its duration from its TOC byte.
    ///
    /// - Throws: `.invalidArgument` if the TOC gives no valid duration, or as `write(packet:samples:)`.
    public mutating func write(packet: some Collection<UInt8>) throws(OggOpusError) -> [UInt8] {
        guard let samples = OggOpusPacket.sampleCount(of: packet) else {
            throw .invalidArgument("cannot tell the duration of a \(packet.count)-byte packet from its TOC byte")
        }
        return try write(packet: packet, samples: samples)
    }

    /// Closes the current page early: returns pages for everything written except the most
    /// recent packet (held back to carry the end-of-stream flag).
    public mutating func flush() -> [UInt8] {
        var output = pending
        pending = []
        if tagsQueued {
            output += ogg.flush()
            page.reset()
        }
        return output
    }

    /// Ends the stream: the last packet goes out on a final page with the end-of-stream flag.
    /// With no audio written, the tags page is the end-of-stream page. Later calls return nothing.
    ///
    /// - Parameter trimming: samples at the end of the last packet that are padding, not audio
    ///   (RFC 7845 §4.4 end trimming): the final granule position is lowered by this much.
    ///   Clamped to the last packet's duration, and so that the final granule stays at or above
    ///   the pre-skip.
    public mutating func finish(trimming: Int = 0) -> [UInt8] {
        guard !isFinished else { return [] }
        isFinished = true
        var output = pending
        pending = []
        // The appends cannot fail for arguments (the stream is not finished yet); only for
        // memory, which libogg reports by clearing its state and which we then cannot recover.
        if !tagsQueued {
            try? ogg.append(tags.serialized(), granulePosition: 0, endOfStream: held == nil)
            tagsQueued = true
            output += ogg.flush()
        }
        if let held {
            let floor = max(held.granule - Int64(held.samples), Int64(head.preSkip))
            let granule = max(held.granule - Int64(max(0, trimming)), min(floor, held.granule))
            try? ogg.append(held.data, granulePosition: granule, endOfStream: true)
            granulePosition = granule
            self.held = nil
        }
        output += ogg.flush()
        return output
    }

    /// Returns the header page(s) not yet handed out, queueing the tags (on their own page) first
    /// if no audio was written before.
    private mutating func queueTags() throws(OggOpusError) -> [UInt8] {
        var output = pending
        pending = []
        if !tagsQueued {
            try ogg.append(tags.serialized(), granulePosition: 0)
            tagsQueued = true
            output += ogg.flush()
        }
        return output
    }
}
