import AudioFiles
import Foundation
import Opus

/// What `ptt talk` and `ptt encode` read: Ogg Opus (packets sent as they are), or WAV / raw PCM
/// (encoded with libopus). A path or `-` for standard input; the format is sniffed unless given.
final class AudioInput {
    enum Format: String, CaseIterable { case auto, ogg, wav, raw }

    struct Options {
        var format: Format = .auto
        var rawRate = 48_000
        var rawChannels = 1
        var frameMilliseconds = 20
        var bitrate: Int?
        var dtx = false
    }

    private var input: ChunkedInput
    private let options: Options
    private var mode: Mode?
    private var pending: [UInt8] = []

    private enum Mode {
        case ogg(OggOpusReader)
        case wav(WAVReader, PCMEncoder)
        case raw(PCMEncoder)
    }

    /// The channel count of what is read, once known.
    private(set) var channels = 1

    init(path: String, options: Options) throws {
        let handle: FileHandle
        if path == "-" {
            handle = .standardInput
        } else {
            guard let file = FileHandle(forReadingAtPath: path) else { throw ValidationText("cannot open \(path)") }
            handle = file
        }
        input = ChunkedInput(handle: handle, chunkSize: 16_384)
        self.options = options
    }

    private func readChunk() throws -> [UInt8]? {
        do { return try input.next().map { Array($0) } } catch { throw ValidationText(error.reason) }
    }

    private func start() throws {
        while pending.count < 4, let chunk = try readChunk() { pending += chunk }
        var format = options.format
        if format == .auto {
            if pending.starts(with: Array("OggS".utf8)) {
                format = .ogg
            } else if pending.starts(with: Array("RIFF".utf8)) {
                format = .wav
            } else {
                throw ValidationText(
                    "input is neither Ogg Opus (OggS) nor WAV (RIFF); use --format raw for raw 16-bit PCM")
            }
        }
        switch format {
        case .ogg:
            var reader = OggOpusReader()
            reader.feed(pending)
            while try !reader.readHeaders() {
                guard let chunk = try readChunk() else {
                    throw ValidationText("the Ogg stream ended before its OpusHead and OpusTags")
                }
                reader.feed(chunk)
            }
            channels = reader.head?.channelCount ?? 1
            mode = .ogg(reader)
        case .wav:
            var reader = WAVReader()
            reader.feed(pending)
            var format = try reader.readHeader()
            while format == nil {
                guard let chunk = try readChunk() else {
                    throw ValidationText("the WAV input ended before its data chunk")
                }
                reader.feed(chunk)
                format = try reader.readHeader()
            }
            channels = format!.channelCount
            mode = .wav(reader, try PCMEncoder(rate: format!.sampleRate, channels: channels, options: options))
        case .raw, .auto:
            channels = options.rawChannels
            var encoder = try PCMEncoder(rate: options.rawRate, channels: channels, options: options)
            encoder.add(RawPCM.samples(pending))
            mode = .raw(encoder)
        }
        pending = []
    }

    /// The next Opus packet and its duration in 48 kHz samples; nil at the end.
    func next() throws -> (packet: [UInt8], samples: Int)? {
        if mode == nil { try start() }
        switch mode! {
        case .ogg(var reader):
            defer { mode = .ogg(reader) }
            while true {
                if let packet = try reader.nextPacket() {
                    guard let samples = packet.sampleCount else {
                        throw ValidationText("an Ogg packet is not valid Opus")
                    }
                    return (packet.data, samples)
                }
                if let chunk = try readChunk() {
                    reader.feed(chunk)
                } else {
                    try reader.finishInput()
                    return try reader.nextPacket().map { ($0.data, $0.sampleCount ?? 0) }
                }
            }
        case .wav(var reader, var encoder):
            defer { mode = .wav(reader, encoder) }
            while true {
                if let packet = try encoder.nextPacket(final: false) { return packet }
                if let samples = try reader.nextSamples(maxFrames: 4_096) {
                    encoder.add(samples)
                    continue
                }
                if let chunk = try readChunk() {
                    reader.feed(chunk)
                    continue
                }
                return try encoder.nextPacket(final: true)
            }
        case .raw(var encoder):
            defer { mode = .raw(encoder) }
            while true {
                if let packet = try encoder.nextPacket(final: false) { return packet }
                if let chunk = try readChunk() {
                    encoder.add(RawPCM.samples(chunk))
                    continue
                }
                return try encoder.nextPacket(final: true)
            }
        }
    }
}

/// Cuts PCM into frames and encodes them with libopus.
struct PCMEncoder {
    let encoder: OpusEncoder
    let channels: Int
    let frameSize: Int
    let samples48k: Int
    var buffer: [Int16] = []

    init(rate: Int, channels: Int, options: AudioInput.Options) throws {
        guard [8_000, 12_000, 16_000, 24_000, 48_000].contains(rate) else {
            throw ValidationText(
                "libopus takes 8, 12, 16, 24 or 48 kHz; this input is \(rate) Hz (resample it, e.g. sox in.wav -r 48000 out.wav)"
            )
        }
        guard [10, 20, 40, 60].contains(options.frameMilliseconds) else {
            throw ValidationText("--frame-ms must be 10, 20, 40 or 60")
        }
        encoder = try OpusEncoder(sampleRate: Int32(rate), channels: channels, application: .voip)
        if let bitrate = options.bitrate { try encoder.setBitrate(.bitsPerSecond(Int32(bitrate))) }
        if options.dtx { try encoder.setDTX(true) }
        self.channels = channels
        frameSize = rate * options.frameMilliseconds / 1000
        samples48k = 48 * options.frameMilliseconds
    }

    mutating func add(_ samples: [Int16]) { buffer += samples }

    /// Encodes one frame if a whole one is buffered (or, at the end, the rest padded with silence).
    mutating func nextPacket(final: Bool) throws -> (packet: [UInt8], samples: Int)? {
        let needed = frameSize * channels
        if buffer.count < needed {
            guard final, !buffer.isEmpty else { return nil }
            buffer += [Int16](repeating: 0, count: needed - buffer.count)
        }
        let frame = Array(buffer.prefix(needed))
        buffer.removeFirst(needed)
        return (try encoder.encode(frame, frameSize: frameSize), samples48k)
    }
}

/// An error whose text is shown to the user as is.
struct ValidationText: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
