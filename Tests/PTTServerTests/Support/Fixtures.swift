import AudioFiles
import Foundation
import RTP
import TestSupport

/// The captured talk bursts in `fixtures/` (see fixtures/README.md).
enum Fixtures {
    static var directory: URL {
        PackagePaths.root
            .appendingPathComponent("fixtures")
    }

    static func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// The Opus packets of an Ogg Opus fixture, with their durations in 48 kHz samples.
    static func opus(_ name: String) throws -> (channels: Int, packets: [(data: [UInt8], samples: Int)]) {
        let (head, packets) = try OggOpusReader.readFile(path: path(name))
        return (
            head.channelCount,
            try packets.map { packet in
                guard let samples = packet.sampleCount else { throw TestFailure("\(name): a packet is not Opus") }
                return (packet.data, samples)
            }
        )
    }

    /// The RTP packets (UDP payloads) of a pcap capture with Ethernet framing, with capture times in seconds.
    static func rtpCapture(_ name: String) throws -> [(time: Double, rtp: [UInt8])] {
        let data = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path(name))))
        func u32(_ at: Int) -> UInt32 {
            UInt32(data[at]) | UInt32(data[at + 1]) << 8 | UInt32(data[at + 2]) << 16 | UInt32(data[at + 3]) << 24
        }
        guard data.count >= 24, u32(0) == 0xA1B2_C3D4 else {
            throw TestFailure("\(name) is not a little-endian microsecond pcap")
        }
        guard u32(20) == 1 else { throw TestFailure("\(name): link type \(u32(20)), expected Ethernet (1)") }
        var offset = 24
        var packets: [(Double, [UInt8])] = []
        while offset + 16 <= data.count {
            let time = Double(u32(offset)) + Double(u32(offset + 4)) / 1e6
            let length = Int(u32(offset + 8))
            let frame = Array(data[(offset + 16)..<min(data.count, offset + 16 + length)])
            offset += 16 + length
            // Ethernet (14) → IPv4 (IHL) → UDP (8).
            guard frame.count > 14 + 20 + 8, frame[12] == 0x08, frame[13] == 0x00, frame[14 + 9] == 17 else { continue }
            let ipHeader = Int(frame[14] & 0x0F) * 4
            let udp = 14 + ipHeader
            packets.append((time, Array(frame[(udp + 8)...])))
        }
        return packets
    }
}
