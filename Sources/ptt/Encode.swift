import ArgumentParser
import AudioFiles
import Foundation

struct Encode: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Encode WAV or raw PCM into an Ogg Opus file with libopus (what `ptt talk` would send).")

    @Argument(help: "Input: WAV, raw 16-bit PCM (--format raw), or - for standard input.") var input: String
    @Argument(help: "Output Ogg Opus file.") var output: String
    @Option(help: "Input format: auto, wav or raw.") var format: String = "auto"
    @Option(help: "Raw PCM sample rate.") var rate = 48_000
    @Option(help: "Raw PCM channels.") var channels = 1
    @Option(help: "Opus frame length in milliseconds: 10, 20, 40 or 60.") var frameMs = 20
    @Option(help: "Bitrate in bits per second (default: libopus's choice).") var bitrate: Int?
    @Flag(help: "Discontinuous transmission: near-empty packets during silence.") var dtx = false

    func run() async throws {
        guard let format = AudioInput.Format(rawValue: format), format != .ogg else {
            throw ValidationError("--format must be auto, wav or raw")
        }
        do {
            let input = try AudioInput(
                path: input,
                options: .init(
                    format: format, rawRate: rate, rawChannels: channels,
                    frameMilliseconds: frameMs, bitrate: bitrate, dtx: dtx))
            var writer: OggOpusFileWriter?
            var packets = 0
            var samples = 0
            while let (packet, duration) = try input.next() {
                if writer == nil { writer = try OggOpusFileWriter(path: output, channels: input.channels) }
                try writer!.write(packet: packet, samples: duration)
                packets += 1
                samples += duration
            }
            try writer?.finish()
            stderr("ptt: wrote \(packets) packets, \(String(format: "%.2f", Double(samples) / 48_000)) s, to \(output)")
        } catch {
            stderr("ptt: \(error)")
            throw ExitCode(1)
        }
    }
}
