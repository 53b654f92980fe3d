/// The identification header of an Ogg Opus stream, `OpusHead` (RFC 7845 §5.1): the first packet,
/// alone on the first page.
///
/// Supports channel mapping family 0 (mono or stereo) and family 1 when it describes a single
/// Opus stream of one or two channels. More channels, multistream layouts and other families
/// are refused with `OggOpusError.unsupported`, since the rest of the project decodes with a
/// plain (single-stream) Opus decoder.
public struct OpusHead: Sendable, Equatable {
    /// The packet's first eight bytes, `OpusHead`.
    public static let magic: [UInt8] = Array("OpusHead".utf8)

    /// Header version: 1 when written here; any 0...15 (major version 0) is accepted on read.
    public let version: UInt8
    /// Output channels: 1 or 2.
    public let channelCount: Int
    /// Samples at 48 kHz to discard from the decoder output at the start of the stream.
    public let preSkip: Int
    /// Sample rate of the original input in Hz (informational; 0 = unspecified). Opus always
    /// decodes at 48 kHz or a rate the player chooses.
    public let inputSampleRate: Int
    /// Gain to apply to the decoded output, in Q7.8 dB (256 = +1 dB).
    public let outputGain: Int16
    /// Channel mapping family: 0 (RTP order, mono or stereo) or 1 (Vorbis order).
    public let mappingFamily: UInt8
    /// The channel mapping table; present exactly when `mappingFamily` is not 0.
    public let channelTable: OpusChannelTable?

    /// Makes a header to write.
    ///
    /// - Parameters:
    ///   - channelCount: 1 or 2.
    ///   - preSkip: 0...65535 samples at 48 kHz; 312 is libopus's usual encoder lookahead.
    ///   - inputSampleRate: informational, 0...UInt32.max Hz.
    ///   - outputGain: Q7.8 dB.
    ///   - mappingFamily: 0, or 1 (then `channelTable` defaults to one stream, channels in order).
    ///   - channelTable: for family 1 only.
    /// - Throws: `.invalidArgument` for out-of-range values, `.unsupported` for layouts this
    ///   implementation refuses.
    public init(
        channelCount: Int, preSkip: Int = 312, inputSampleRate: Int = 48_000, outputGain: Int16 = 0,
        mappingFamily: UInt8 = 0, channelTable: OpusChannelTable? = nil
    ) throws(OggOpusError) {
        guard (0...0xFFFF).contains(preSkip) else {
            throw .invalidArgument("pre-skip \(preSkip) is not in 0...65535")
        }
        guard (0...Int(UInt32.max)).contains(inputSampleRate) else {
            throw .invalidArgument("input sample rate \(inputSampleRate) does not fit 32 bits")
        }
        var table = channelTable
        if mappingFamily == 1, table == nil, (1...2).contains(channelCount) {
            table = OpusChannelTable(
                streamCount: 1, coupledCount: channelCount - 1, mapping: (0..<channelCount).map { UInt8($0) })
        }
        do {
            try Self.check(channelCount: channelCount, mappingFamily: mappingFamily, channelTable: table)
        } catch {
            if case .badHead(let why) = error { throw .invalidArgument(why) }
            throw error
        }
        self.version = 1
        self.channelCount = channelCount
        self.preSkip = preSkip
        self.inputSampleRate = inputSampleRate
        self.outputGain = outputGain
        self.mappingFamily = mappingFamily
        self.channelTable = table
    }

    /// Parses an `OpusHead` packet.
    ///
    /// - Throws: `.badHead` for a malformed packet (wrong magic, too short, impossible channel
    ///   layout), `.unsupported` for a newer major version or a layout refused here.
    public init(parsing packet: some Collection<UInt8>) throws(OggOpusError) {
        let bytes = Array(packet)
        guard bytes.starts(with: Self.magic) else {
            throw .badHead("does not start with \"OpusHead\"")
        }
        guard bytes.count >= 19 else {
            throw .badHead("\(bytes.count) bytes; at least 19 are needed")
        }
        let version = bytes[8]
        guard version >> 4 == 0 else {
            throw .unsupported("OpusHead version \(version) (major version \(version >> 4); only 0 is known)")
        }
        let channelCount = Int(bytes[9])
        let family = bytes[18]
        guard family <= 1 else {
            throw .unsupported("channel mapping family \(family); only 0 and 1 are supported")
        }
        var table: OpusChannelTable?
        if family != 0 {
            let streams = bytes.count > 19 ? Int(bytes[19]) : 0
            guard bytes.count >= 21 + channelCount else {
                throw .badHead(
                    "mapping family \(family) needs a \(channelCount)-channel table; the packet is \(bytes.count) bytes"
                )
            }
            table = OpusChannelTable(
                streamCount: streams, coupledCount: Int(bytes[20]), mapping: Array(bytes[21..<(21 + channelCount)]))
        }
        try Self.check(channelCount: channelCount, mappingFamily: family, channelTable: table)
        self.version = version
        self.channelCount = channelCount
        self.preSkip = Int(LittleEndianBytes.uint16(bytes, at: 10))
        self.inputSampleRate = Int(LittleEndianBytes.uint32(bytes, at: 12))
        self.outputGain = Int16(bitPattern: LittleEndianBytes.uint16(bytes, at: 16))
        self.mappingFamily = family
        self.channelTable = table
    }

    /// The `OpusHead` packet: 19 bytes, plus the channel table for family 1.
    public func serialized() -> [UInt8] {
        var bytes = Self.magic
        bytes.append(version)
        bytes.append(UInt8(channelCount))
        LittleEndianBytes.append(UInt16(preSkip), to: &bytes)
        LittleEndianBytes.append(UInt32(inputSampleRate), to: &bytes)
        LittleEndianBytes.append(UInt16(bitPattern: outputGain), to: &bytes)
        bytes.append(mappingFamily)
        if let channelTable {
            bytes.append(UInt8(channelTable.streamCount))
            bytes.append(UInt8(channelTable.coupledCount))
            bytes.append(contentsOf: channelTable.mapping)
        }
        return bytes
    }

    private static func check(
        channelCount: Int, mappingFamily: UInt8, channelTable: OpusChannelTable?
    ) throws(OggOpusError) {
        guard channelCount >= 1 else { throw .badHead("channel count \(channelCount)") }
        switch mappingFamily {
        case 0:
            guard channelCount <= 2 else {
                throw .badHead("mapping family 0 allows 1 or 2 channels, not \(channelCount)")
            }
            guard channelTable == nil else { throw .badHead("mapping family 0 has no channel table") }
        case 1:
            guard channelCount <= 8 else {
                throw .badHead("mapping family 1 allows 1 to 8 channels, not \(channelCount)")
            }
            guard channelCount <= 2 else {
                throw .unsupported("\(channelCount) channels; only mono and stereo are supported")
            }
            guard let table = channelTable else { throw .badHead("mapping family 1 needs a channel table") }
            try table.check(channelCount: channelCount)
        default:
            throw .unsupported("channel mapping family \(mappingFamily); only 0 and 1 are supported")
        }
    }
}
