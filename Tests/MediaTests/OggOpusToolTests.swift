import AudioFiles
import Foundation
import Opus
import TestSupport
import Testing

/// Interoperability with the reference tools from opus-tools (Debian `opus-tools`).
@Suite("Ogg Opus against opus-tools")
struct OggOpusToolTests {
    /// Encodes exactly `seconds` of sine with libopus in 20 ms packets and writes it with
    /// `OggOpusFileWriter`, the way opusenc does: enough packets to cover pre-skip plus the
    /// input, the last one padded with silence and trimmed by the final granule position.
    static func writeOurFile(path: String, channels: Int, seconds: Int) throws -> (packets: Int, preSkip: Int) {
        let encoder = try OpusEncoder(sampleRate: 48_000, channels: channels, application: .audio)
        let preSkip = encoder.lookahead
        let file = try OggOpusFileWriter(
            path: path, writer: OggOpusWriter(channels: channels, preSkip: preSkip, comments: ["TITLE=tool test"]))
        let needed = preSkip + 48_000 * seconds
        let packets = (needed + 959) / 960
        let pcm =
            WAVFixtures.sine(frames: 48_000 * seconds, channels: channels, sampleRate: 48_000)
            + [Int16](repeating: 0, count: (packets * 960 - 48_000 * seconds) * channels)
        let frame = 960 * channels
        var count = 0
        for start in stride(from: 0, to: pcm.count, by: frame) {
            let packet = try encoder.encode(Array(pcm[start..<(start + frame)]), frameSize: 960)
            try file.write(packet: packet, samples: 960)
            count += 1
        }
        try file.finish(trimming: packets * 960 - needed)
        return (count, preSkip)
    }

    @Test(
        "Reads what opusenc writes",
        .enabled(if: OggFixtures.toolExists("opusenc"), "opusenc (opus-tools) is not installed"),
        arguments: [(2, 48_000), (1, 16_000)])
    func readsOpusenc(channels: Int, sampleRate: Int) async throws {
        let directory = try OggFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let wav = directory.appendingPathComponent("in.wav").path
        let opus = directory.appendingPathComponent("out.opus").path
        let seconds = 2
        let writer = try WAVFileWriter(path: wav, format: WAVFormat(sampleRate: sampleRate, channelCount: channels))
        try writer.write(WAVFixtures.sine(frames: sampleRate * seconds, channels: channels, sampleRate: sampleRate))
        try writer.finish()

        let result = try await ToolRun.run("/usr/bin/opusenc", ["--quiet", wav, opus])
        #expect(result.status == 0, "opusenc: \(result.stderr)")

        let (head, packets) = try OggOpusReader.readFile(path: opus)
        #expect(head.channelCount == channels)
        #expect(head.inputSampleRate == sampleRate)
        let durations = try packets.map { try OpusPacket.validate($0.data).totalSamples }
        #expect(durations.allSatisfy { $0 == 960 }, "opusenc defaults to 20 ms frames")
        // Packets cover pre-skip plus the whole input; the final granule trims the excess.
        let needed = head.preSkip + 48_000 * seconds
        #expect(packets.count == (needed + 959) / 960)
        #expect(abs(Double(packets.count) * 0.020 - Double(seconds)) < 0.05)
        #expect(packets.last?.granulePosition == Int64(needed))
        #expect(packets.last?.isEndOfStream == true)
        #expect(packets.dropLast().allSatisfy { !$0.isEndOfStream })
        // Granules agree with the packet durations wherever a page ends.
        var total = Int64(0)
        for (packet, samples) in zip(packets, durations) {
            total += Int64(samples)
            if let granule = packet.granulePosition, !packet.isEndOfStream {
                #expect(granule == total)
            }
        }
    }

    @Test(
        "opusinfo accepts our files",
        .enabled(if: OggFixtures.toolExists("opusinfo"), "opusinfo (opus-tools) is not installed"),
        arguments: [1, 2])
    func opusinfoAccepts(channels: Int) async throws {
        let directory = try OggFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("ours.opus").path
        let written = try Self.writeOurFile(path: path, channels: channels, seconds: 2)
        #expect(written.packets == (written.preSkip + 96_000 + 959) / 960)

        let result = try await ToolRun.run("/usr/bin/opusinfo", [path])
        #expect(result.status == 0, "opusinfo: \(result.stdout) \(result.stderr)")
        #expect(result.stdout.contains("Channels: \(channels)"), "\(result.stdout)")
        #expect(result.stdout.contains("Playback length: 0m:02.000s"), "\(result.stdout)")
        #expect(result.stdout.contains("Pre-skip: \(written.preSkip)"), "\(result.stdout)")
        #expect(result.stdout.contains("TITLE=tool test"))
        #expect(result.stdout.contains("Logical stream 1 ended"))
        let complaints = (result.stdout + result.stderr).lowercased()
        #expect(!complaints.contains("warning") && !complaints.contains("error"), "\(result.stdout) \(result.stderr)")
    }

    @Test(
        "opusdec decodes our files to the expected number of samples",
        .enabled(if: OggFixtures.toolExists("opusdec"), "opusdec (opus-tools) is not installed"),
        arguments: [1, 2])
    func opusdecDecodes(channels: Int) async throws {
        let directory = try OggFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("ours.opus").path
        let wav = directory.appendingPathComponent("decoded.wav").path
        _ = try Self.writeOurFile(path: path, channels: channels, seconds: 2)

        let result = try await ToolRun.run("/usr/bin/opusdec", ["--quiet", path, wav])
        #expect(result.status == 0, "opusdec: \(result.stderr)")

        // Through the streaming file reader with a small chunk size, to exercise it too.
        let reader = try WAVFileReader(path: wav, chunkSize: 333)
        let format = try reader.readHeader()
        #expect(format.channelCount == channels)
        #expect(format.sampleRate == 48_000)
        var frames = 0
        var peak: Int16 = 0
        while let samples = try reader.read(maxFrames: 1_000) {
            frames += samples.count / channels
            peak = max(peak, samples.map { $0 == .min ? .max : abs($0) }.max() ?? 0)
        }
        // Final granule minus pre-skip: exactly the input.
        #expect(frames == 96_000)
        #expect(peak > 6_000, "the decoded sine is audible (peak \(peak))")
    }
}
