import Foundation
import Opus
import PTTKit
import PTTProtocol
import PTTServer
import RTP
import SRTP
import ServerTestSupport
import TestSupport
import Testing

// Audio for the relay tests (RelayTests, ReplayTests, InteropTests): talkers, tone packets, collecting what a listener receives.

/// A member with a control connection and an open media session.
struct Talker {
    let peer: Peer
    let joined: Joined
    let media: MediaSession
    var ssrc: UInt32 { joined.media.ssrc }
}

/// Opus packets of a 440 Hz tone, 20 ms each, as a real encoder makes them.
func tonePackets(_ count: Int) throws -> [[UInt8]] {
    let encoder = try OpusEncoder(sampleRate: 48_000, channels: 1, application: .voip)
    return try (0..<count).map { frame in
        let pcm = (0..<960).map { i in Int16(8000 * sin(2 * Double.pi * 440 * Double(frame * 960 + i) / 48_000)) }
        return try encoder.encode(pcm, frameSize: 960)
    }
}

/// Collects up to `count` packets, or what arrived when `timeout` passes.
func collect(_ media: MediaSession, count: Int, timeout: Duration = .seconds(10)) async -> [ReceivedAudio] {
    let stream = media.received
    let box = PacketBox()
    await withTaskGroup(of: Void.self) { group in
        group.addTask {
            for await packet in stream {
                if box.append(packet) >= count { break }
            }
        }
        group.addTask { try? await Task.sleep(for: timeout.scaled) }
        await group.next()
        group.cancelAll()
    }
    return box.packets
}

/// The value of one sample line of Prometheus text, e.g. `name{label="x"}`.
func metricValue(_ text: String, _ sample: String) -> Double? {
    text.split(separator: "\n").first { $0.hasPrefix(sample + " ") }.flatMap { Double($0.dropFirst(sample.count + 1)) }
}

/// Packets gathered by a collecting task, readable when it is cut short.
final class PacketBox: @unchecked Sendable {
    // @unchecked: guarded by `lock`.
    private let lock = NSLock()
    private var gathered: [ReceivedAudio] = []
    func append(_ packet: ReceivedAudio) -> Int {
        lock.withLock {
            gathered.append(packet)
            return gathered.count
        }
    }
    var packets: [ReceivedAudio] { lock.withLock { gathered } }
}
