import ArgumentParser
import Foundation
import Media
import Opus
import PTTClient
import PTTProtocol

struct Listen: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Join a channel and write what it hears, until interrupted or --seconds pass.",
        discussion: """
            OUT is Ogg Opus by default (the packets as the relay sent them; silence between bursts is filled so the \
            file keeps real time), or WAV / raw PCM decoded with libopus (--format wav|raw). - writes to standard output.
            """)

    @OptionGroup var connection: ConnectionOptions
    @Option(help: "Channel name or id.") var channel: String
    @Option(help: "Where to write: a file, or - for standard output.") var out: String
    @Option(help: "Output format: ogg, wav or raw.") var format: String = "ogg"
    @Option(help: "Channels of decoded output (wav, raw).") var channels = 1
    @Option(help: "Stop after this many seconds.") var seconds: Double?
    @Option(help: "Stop after this many packets.") var packets: Int?
    @Flag(help: "Join receive-only.") var receiveOnly = false
    @Flag(help: "Keep the membership afterwards.") var stay = false

    func run() async throws {
        guard ["ogg", "wav", "raw"].contains(format) else { throw ValidationError("--format must be ogg, wav or raw") }
        guard channels == 1 || channels == 2 else { throw ValidationError("--channels must be 1 or 2") }
        let member = try await MemberConnection.open(connection, channel: channel, receiveOnly: receiveOnly)
        let sink: AudioSink
        do {
            sink = try AudioSink(path: out, format: format, channels: channels)
        } catch {
            stderr("ptt: \(error)")
            await member.close(leave: !stay)
            throw ExitCode(1)
        }
        stderr("ptt: listening on \(channel) (\(member.joined.media.security))")
        let stream = member.media.received
        let limit = packets
        let box = SinkBox(sink)
        try await runUntilInterrupted(seconds: seconds) {
            for await packet in stream {
                try box.write(packet)
                if let limit, box.count >= limit { return }
            }
        }
        do { try box.finish() } catch { stderr("ptt: \(error)") }
        stderr("ptt: wrote \(box.count) packets to \(out)")
        await member.close(leave: !stay)
    }
}

/// Shares the sink between the receiving task and the command (one at a time).
final class SinkBox: @unchecked Sendable {
    private let lock = NSLock()
    private let sink: AudioSink
    init(_ sink: AudioSink) { self.sink = sink }
    var count: Int { lock.withLock { sink.count } }
    func write(_ packet: ReceivedAudio) throws { try lock.withLock { try sink.write(packet) } }
    func finish() throws { try lock.withLock { try sink.finish() } }
}

/// Writes received packets as Ogg Opus, or decodes them to WAV / raw PCM; fills silence between bursts.
final class AudioSink {
    private let path: String
    private let format: String
    private let channels: Int
    private var ogg: OggOpusFileWriter?
    private var wav: WAVFileWriter?
    private var rawHandle: FileHandle?
    private var decoder: OpusDecoder?
    private var nextTimestamp: UInt32?
    private(set) var count = 0

    /// The most silence filled in one gap.
    static let maxGapSamples = 48_000 * 10

    init(path: String, format: String, channels: Int) throws {
        self.path = path
        self.format = format
        self.channels = channels
        if format != "ogg" { decoder = try OpusDecoder(sampleRate: 48_000, channels: channels) }
        if format == "wav" {
            let pcm = try WAVFormat(sampleRate: 48_000, channelCount: channels)
            wav = path == "-" ? try WAVFileWriter(handle: .standardOutput, format: pcm) : try WAVFileWriter(path: path, format: pcm)
        } else if format == "raw" {
            if path == "-" { rawHandle = .standardOutput } else {
                guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
                    throw ValidationText("cannot create \(path)")
                }
                rawHandle = handle
            }
        }
    }

    func write(_ packet: ReceivedAudio) throws {
        guard let samples = OggOpusPacket.sampleCount(of: packet.payload) else { return }
        var gap = 0
        if let expected = nextTimestamp {
            let delta = Int(Int32(bitPattern: packet.timestamp &- expected))
            if delta > 0 { gap = min(delta, Self.maxGapSamples) }
        }
        nextTimestamp = packet.timestamp &+ UInt32(samples)
        if format == "ogg" {
            if ogg == nil {
                let stereo = (packet.payload.first ?? 0) & 0x04 != 0
                let writer = try OggOpusWriter(channels: stereo ? 2 : 1)
                ogg = path == "-" ? try OggOpusFileWriter(handle: .standardOutput, writer: writer) : try OggOpusFileWriter(path: path, writer: writer)
            }
            // Silence as 20 ms DTX packets (a TOC byte alone: the decoder conceals).
            var filled = 0
            while gap - filled >= 960 {
                try ogg!.write(packet: [0xF8], samples: 960)
                filled += 960
            }
            try ogg!.write(packet: packet.payload, samples: samples)
        } else {
            let silence = [Int16](repeating: 0, count: gap * channels)
            let pcm = try decoder!.decode(packet.payload)
            try emit(silence)
            try emit(pcm)
        }
        count += 1
    }

    private func emit(_ pcm: [Int16]) throws {
        guard !pcm.isEmpty else { return }
        if let wav { try wav.write(pcm) }
        if let rawHandle { try rawHandle.write(contentsOf: RawPCM.bytes(pcm)) }
    }

    func finish() throws {
        try ogg?.finish()
        try wav?.finish()
        try rawHandle?.synchronize()
    }
}
