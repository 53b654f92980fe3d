import AudioFiles
import Foundation
import NIOCore
import Opus
import PTTCore
import PTTProtocol
import PTTRelay

extension BurstRecorder {
    /// The most an export may hold (it is built in memory and sent whole).
    static let maxExportBytes = 256 << 20

    /// A recorded burst's packets (timestamps from 0), read on the recorder's thread, for a replay.
    func load(_ burst: RecordedBurst) -> EventLoopFuture<[RecordedPacket]> {
        let path = path(of: burst)
        return eventLoop.submit {
            let packets = Self.readPackets(path).packets
            guard !packets.isEmpty else { throw AdminError(.notFound, "recording #\(burst.id) has no readable audio") }
            return packets
        }
    }

    /// A recorded burst's file as stored.
    func audio(of burst: RecordedBurst) -> EventLoopFuture<[UInt8]> {
        let path = path(of: burst)
        return eventLoop.submit {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw AdminError(.notFound, "the file of recording #\(burst.id) is gone")
            }
            return [UInt8](data)
        }
    }

    /// One Ogg Opus stream of `bursts` in the order given, the silence between two shortened to `gap` at most
    /// (encoded digital silence, so every player plays it as silence).
    func export(_ bursts: [RecordedBurst], gap: Duration) -> EventLoopFuture<[UInt8]> {
        let paths = bursts.map { path(of: $0) }
        return eventLoop.submit {
            let loaded = paths.map { Self.readPackets($0) }
            let stereo = loaded.contains { $0.stereo }
            var writer = try OggOpusWriter(
                channels: stereo ? 2 : 1, vendor: "pttrelay",
                comments: ["TITLE=\(bursts.first?.channelName ?? "") (\(bursts.count) bursts)"])
            let silence = try OpusEncoder(channels: stereo ? 2 : 1).encode(
                [Int16](repeating: 0, count: 960 * (stereo ? 2 : 1)), frameSize: 960)
            var output: [UInt8] = []
            var previousEnd: Date?
            for (burst, (packets, _)) in zip(bursts, loaded) where !packets.isEmpty {
                if let previousEnd {
                    let pause = max(0, burst.startedAt.timeIntervalSince(previousEnd))
                    let frames = Int(
                        min(pause, Double(gap.components.seconds) + Double(gap.components.attoseconds) / 1e18) * 50)
                    for _ in 0..<frames { output += try writer.write(packet: silence, samples: 960) }
                }
                for packet in packets { output += try writer.write(packet: packet.payload) }
                previousEnd = burst.startedAt.addingTimeInterval(Double(burst.durationMs) / 1000)
                guard output.count <= Self.maxExportBytes else {
                    throw AdminError(.tooLarge, "the export is over \(Self.maxExportBytes >> 20) MiB: ask for less")
                }
            }
            output += writer.finish()
            return output
        }
    }
}
