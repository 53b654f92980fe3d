/// Reads a 16-bit PCM WAV stream incrementally: bytes in, interleaved `Int16` samples out.
///
/// ```swift
/// var reader = WAVReader()
/// reader.feed(chunk)
/// while let samples = try reader.nextSamples() { ... }   // nil: feed more (or the end)
/// ```
///
/// Accepts `fmt ` format 1 (PCM) and `WAVE_FORMAT_EXTENSIBLE` with the PCM subformat, 16 bits,
/// 1 or 2 channels, any rate; chunks other than `fmt ` and `data` are skipped wherever they are.
/// A `data` size of 0 or 0xFFFFFFFF (written by tools streaming to a pipe, e.g. `arecord`) means
/// "until the end of the input". A `data` chunk shorter than declared is accepted: compare
/// `dataBytesRead` with `declaredDataBytes` to notice. Errors are sticky.
public struct WAVReader: Sendable {
    private enum Stage: Sendable {
        case riff
        case chunkHeader
        case skipping(Int)
        case data(remaining: Int?)
        case done
    }

    private static let pcmSubformatSuffix: [UInt8] = [
        0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71,
    ]

    private var buffer: [UInt8] = []
    private var start = 0
    private var stage = Stage.riff
    private var failure: WAVError?

    /// The sample format, once the `fmt ` chunk has been read.
    public private(set) var format: WAVFormat?
    /// The `data` chunk's declared size in bytes; `nil` before it, or when streamed (0 / 0xFFFFFFFF).
    public private(set) var declaredDataBytes: Int?
    /// Audio bytes returned so far.
    public private(set) var dataBytesRead = 0
    /// Whether the `data` chunk has begun (so `format` is final and samples may follow).
    public var isInData: Bool {
        switch stage {
        case .data, .done: true
        default: false
        }
    }

    /// Whether the `data` chunk, of declared size, has been read completely; later input is ignored.
    public var isComplete: Bool {
        if case .done = stage { return true }
        return false
    }

    /// Creates a reader with no input yet.
    public init() {}

    /// Appends input bytes (any chunking). Never fails; problems surface from `nextSamples`.
    public mutating func feed(_ bytes: some Collection<UInt8>) {
        if case .done = stage { return }
        if start > 65_536, start * 2 > buffer.count {
            buffer.removeFirst(start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// Parses up to the start of the `data` chunk.
    ///
    /// - Returns: the format once the `data` chunk has begun; `nil` if more input is needed.
    /// - Throws: `.notRIFF`, `.notWAVE`, `.badFormat`, `.unsupportedFormat`.
    public mutating func readHeader() throws(WAVError) -> WAVFormat? {
        if let failure { throw failure }
        do {
            while !isInData {
                guard try parseStep() else { return nil }
            }
            return format
        } catch {
            failure = error
            throw error
        }
    }

    /// Up to `maxFrames` frames of interleaved samples (`frames × channelCount` values).
    ///
    /// - Returns: `nil` when more input is needed, or when the data chunk is complete.
    /// - Throws: as `readHeader`.
    public mutating func nextSamples(maxFrames: Int = 4_096) throws(WAVError) -> [Int16]? {
        guard try readHeader() != nil, let format, case .data(let remaining) = stage else { return nil }
        var available = buffer.count - start
        if let remaining { available = min(available, remaining) }
        let frames = min(available / format.bytesPerFrame, max(1, maxFrames))
        guard frames > 0 else {
            if remaining.map({ $0 < format.bytesPerFrame }) == true {
                stage = .done  // a declared size of less than one frame
                buffer = []
                start = 0
            }
            return nil
        }
        let byteCount = frames * format.bytesPerFrame
        let samples = RawPCM.samples(buffer[start..<(start + byteCount)])
        start += byteCount
        dataBytesRead += byteCount
        if let left = remaining.map({ $0 - byteCount }), left < format.bytesPerFrame {
            stage = .done
            buffer = []
            start = 0
        } else {
            stage = .data(remaining: remaining.map { $0 - byteCount })
        }
        return samples
    }

    /// Checks that the input ended cleanly: the header through the start of `data` must be
    /// complete. A short `data` chunk and a partial final frame are accepted (and dropped).
    ///
    /// - Throws: `.truncated` if the input ended before the `data` chunk, or the earlier error.
    public mutating func finishInput() throws(WAVError) {
        if let failure { throw failure }
        guard isInData else {
            let what =
                buffer.isEmpty
                ? "the input is empty"
                : format == nil ? "input ended before the fmt chunk" : "input ended before the data chunk"
            throw .truncated(what)
        }
    }

    /// Reads a whole in-memory WAV stream.
    public static func read(_ bytes: some Collection<UInt8>) throws(WAVError) -> (format: WAVFormat, samples: [Int16]) {
        var reader = WAVReader()
        reader.feed(bytes)
        var samples: [Int16] = []
        while let chunk = try reader.nextSamples(maxFrames: .max) {
            samples += chunk
        }
        try reader.finishInput()
        return (reader.format!, samples)
    }

    // MARK: - Parsing

    /// Advances through one header element; `false` if more input is needed.
    private mutating func parseStep() throws(WAVError) -> Bool {
        let available = buffer.count - start
        switch stage {
        case .riff:
            guard available >= 12 else {
                if available >= 4 { try checkRIFF() }
                return false
            }
            try checkRIFF()
            guard Array(buffer[(start + 8)..<(start + 12)]) == Array("WAVE".utf8) else { throw .notWAVE }
            start += 12
            stage = .chunkHeader
        case .chunkHeader:
            guard available >= 8 else { return false }
            let id = String(decoding: buffer[start..<(start + 4)], as: UTF8.self)
            let size = Int(LittleEndianBytes.uint32(buffer, at: start + 4))
            switch id {
            case "fmt ":
                guard format == nil else { throw .badFormat("a second fmt chunk") }
                guard (16...1_024).contains(size) else { throw .badFormat("fmt chunk of \(size) bytes") }
                let padded = size + size & 1
                guard available >= 8 + padded else { return false }
                format = try Self.parseFormat(Array(buffer[(start + 8)..<(start + 8 + size)]))
                start += 8 + padded
            case "data":
                guard format != nil else { throw .badFormat("data chunk before the fmt chunk") }
                start += 8
                let streamed = size == 0 || size == 0xFFFF_FFFF
                declaredDataBytes = streamed ? nil : size
                stage = .data(remaining: declaredDataBytes)
            default:
                start += 8
                stage = .skipping(size + size & 1)
            }
        case .skipping(let remaining):
            let skipped = min(remaining, available)
            start += skipped
            guard skipped == remaining else {
                stage = .skipping(remaining - skipped)
                return false
            }
            stage = .chunkHeader
        case .data, .done:
            break
        }
        return true
    }

    private func checkRIFF() throws(WAVError) {
        let magic = String(decoding: buffer[start..<(start + 4)], as: UTF8.self)
        switch magic {
        case "RIFF": return
        case "RIFX": throw .unsupportedFormat("big-endian RIFX")
        case "RF64": throw .unsupportedFormat("RF64 (64-bit sizes)")
        default: throw .notRIFF
        }
    }

    private static func parseFormat(_ fmt: [UInt8]) throws(WAVError) -> WAVFormat {
        var tag = LittleEndianBytes.uint16(fmt, at: 0)
        let channels = Int(LittleEndianBytes.uint16(fmt, at: 2))
        let rate = Int(LittleEndianBytes.uint32(fmt, at: 4))
        let blockAlign = Int(LittleEndianBytes.uint16(fmt, at: 12))
        let bits = Int(LittleEndianBytes.uint16(fmt, at: 14))
        if tag == 0xFFFE {
            guard fmt.count >= 40 else {
                throw .badFormat("WAVE_FORMAT_EXTENSIBLE fmt chunk of \(fmt.count) bytes; 40 are needed")
            }
            guard Array(fmt[26..<40]) == pcmSubformatSuffix else {
                throw .unsupportedFormat("WAVE_FORMAT_EXTENSIBLE with a non-standard subformat GUID")
            }
            tag = LittleEndianBytes.uint16(fmt, at: 24)
        }
        switch tag {
        case 1:
            guard bits == 16 else { throw .unsupportedFormat("\(bits)-bit PCM") }
        case 3:
            throw .unsupportedFormat("\(bits)-bit IEEE float samples")
        case 6:
            throw .unsupportedFormat("A-law samples")
        case 7:
            throw .unsupportedFormat("µ-law samples")
        default:
            throw .unsupportedFormat("format tag 0x\(String(tag, radix: 16))")
        }
        guard channels >= 1 else { throw .badFormat("0 channels") }
        guard channels <= 2 else { throw .unsupportedFormat("\(channels) channels") }
        guard rate >= 1 else { throw .badFormat("sample rate 0") }
        guard blockAlign == channels * 2 else {
            throw .badFormat("block align \(blockAlign) for \(channels) channels of 16 bits")
        }
        do {
            return try WAVFormat(sampleRate: rate, channelCount: channels)
        } catch {
            throw .badFormat("sample rate \(rate) Hz")
        }
    }
}
