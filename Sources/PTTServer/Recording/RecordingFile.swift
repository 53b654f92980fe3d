import AudioFiles
import Foundation
import PTTRelay

/// One burst being written as an Ogg Opus file, page by page as its packets come: a packet's time is its RTP
/// timestamp, so a gap (packets a bound dropped, or silence the speaker did not send) is kept as packets a decoder
/// conceals (a TOC byte alone), and the file plays as long as the burst lasted.
final class RecordingFile {
    let path: String
    private let writer: OggOpusFileWriter
    /// The timestamp the next packet has when nothing is missing.
    private var nextTimestamp: UInt32?
    private(set) var packets = 0
    /// 48 kHz samples written, fillers included.
    private(set) var samples = 0

    /// The longest gap filled in a recording.
    static let maxGapSamples = 48_000 * 10

    /// Creates the file; `stereo` from the first packet's TOC byte.
    init(path: String, stereo: Bool, comments: [String]) throws {
        self.path = path
        // A page at most every half second: a crash loses what is on no page yet.
        writer = try OggOpusFileWriter(
            path: path,
            writer: OggOpusWriter(
                channels: stereo ? 2 : 1, vendor: "pttrelay", comments: comments, maxSamplesPerPage: 24_000))
    }

    /// Adds packets in order; what is on full pages is written out.
    func write(_ batch: [RecordedPacket]) throws {
        for packet in batch {
            guard let duration = OggOpusPacket.sampleCount(of: packet.payload) else { continue }
            if let expected = nextTimestamp {
                let gap = Int(Int32(bitPattern: packet.timestamp &- expected))
                if gap > 0 { samples += try writer.writeFiller(samples: min(gap, Self.maxGapSamples)) }
            }
            try writer.write(packet: packet.payload, samples: duration)
            nextTimestamp = packet.timestamp &+ UInt32(duration)
            packets += 1
            samples += duration
        }
        try writer.flush()
    }

    /// Ends the stream (the end-of-stream page) and syncs the file to disk.
    func finish() throws {
        try writer.finish()
        if let handle = FileHandle(forWritingAtPath: path) {
            try? handle.synchronize()
            try? handle.close()
        }
    }

    var durationMs: Int { samples / 48 }
}
