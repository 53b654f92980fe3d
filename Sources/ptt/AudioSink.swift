import AudioFiles
import Foundation
import Opus
import PTTKit

/// Writes received packets, in sequence order, as Ogg Opus, or decodes them to WAV / raw PCM. Keeps real
/// time: silence between bursts is filled, and packets lost on the way (the gaps the jitter buffer reports)
/// are concealed: in decoded output with in-band FEC from the next packet and libopus packet loss
/// concealment, in Ogg output with packets the decoder conceals (a TOC byte alone).
final class AudioSink {
    private let path: String
    private let format: String
    private let channels: Int
    private var ogg: OggOpusFileWriter?
    private var wav: WAVFileWriter?
    private var rawHandle: FileHandle?
    private var decoder: OpusDecoder?
    private var nextTimestamp: UInt32?
    /// Packets written.
    private(set) var count = 0
    /// Lost packets whose time was filled with concealment.
    private(set) var concealed = 0

    /// The most silence filled in one gap.
    static let maxGapSamples = 48_000 * 10

    init(path: String, format: String, channels: Int) throws {
        self.path = path
        self.format = format
        self.channels = channels
        if format != "ogg" { decoder = try OpusDecoder(sampleRate: 48_000, channels: channels) }
        if format == "wav" {
            let pcm = try WAVFormat(sampleRate: 48_000, channelCount: channels)
            wav =
                path == "-"
                ? try WAVFileWriter(handle: .standardOutput, format: pcm) : try WAVFileWriter(path: path, format: pcm)
        } else if format == "raw" {
            if path == "-" {
                rawHandle = .standardOutput
            } else {
                guard FileManager.default.createFile(atPath: path, contents: nil),
                    let handle = FileHandle(forWritingAtPath: path)
                else {
                    throw ValidationText("cannot create \(path)")
                }
                rawHandle = handle
            }
        }
    }

    /// Writes one packet; `lost` packets went missing just before it.
    func write(_ packet: PlayoutPacket, lostBefore lost: Int = 0) throws {
        guard let samples = OggOpusPacket.sampleCount(of: packet.opus) else { return }
        var gap = 0
        if let expected = nextTimestamp {
            let delta = Int(Int32(bitPattern: packet.timestamp &- expected))
            if delta > 0 { gap = min(delta, Self.maxGapSamples) }
        }
        nextTimestamp = packet.timestamp &+ UInt32(samples)
        // The lost packets are taken to be as long as this one; whatever else the gap holds is silence
        // (DTX, or the pause between bursts), and comes first.
        let concealment = lost > 0 ? min(gap, lost * samples) / samples * samples : 0
        if concealment > 0 { concealed += lost }
        if format == "ogg" {
            if ogg == nil {
                let stereo = (packet.opus.first ?? 0) & 0x04 != 0
                let writer = try OggOpusWriter(channels: stereo ? 2 : 1)
                ogg =
                    path == "-"
                    ? try OggOpusFileWriter(handle: .standardOutput, writer: writer)
                    : try OggOpusFileWriter(path: path, writer: writer)
            }
            try ogg!.writeFiller(samples: gap)
            try ogg!.write(packet: packet.opus, samples: samples)
        } else {
            try emit([Int16](repeating: 0, count: (gap - concealment) * channels))
            if concealment > 0 {
                // Concealment for all but the last lost packet; the last one from the FEC data of this packet
                // (libopus falls back to concealment when it carries none).
                for _ in 1..<(concealment / samples) { try emit(try decoder!.decodeLoss(samples: samples)) }
                try emit(try decoder!.decodeFEC(packet.opus, samples: samples))
            }
            try emit(try decoder!.decode(packet.opus))
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
