import AudioFiles
import Foundation
import Opus
import RTP
import Testing

/// The committed talk bursts in `fixtures/` (opusenc and `ptt encode` output).
@Suite("Ogg Opus fixtures")
struct OggOpusFixtureTests {
    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("fixtures")

    @Test(
        "Fixtures read completely, every packet valid, durations as documented",
        arguments: [
            ("burst-20ms-mono.opus", 1, 960, 6.164),
            ("burst-60ms-mono.opus", 1, 2_880, 6.164),
            ("burst-10ms-stereo.opus", 2, 480, 6.164),
            ("burst-dtx.opus", 1, 960, 13.833),
        ])
    func readFixture(name: String, channels: Int, frameSamples: Int, seconds: Double) throws {
        let (head, packets) = try OggOpusReader.readFile(path: Self.fixtures.appendingPathComponent(name).path)
        #expect(head.channelCount == channels)
        for packet in packets {
            let info = try OpusPacket.validate(packet.data)
            #expect(info.totalSamples == frameSamples)
            #expect(packet.sampleCount == frameSamples)
        }
        let last = try #require(packets.last)
        #expect(last.isEndOfStream)
        let final = try #require(last.granulePosition)
        let playback = Double(final - Int64(head.preSkip)) / 48_000
        #expect(abs(playback - seconds) < 0.001)
        #expect(final <= Int64(packets.count * frameSamples) && final > Int64((packets.count - 1) * frameSamples))
        if name == "burst-20ms-mono.opus" { #expect(packets.count == 309) }  // as many as RTP packets in burst-rtp.pcap
        if name == "burst-dtx.opus" { #expect(packets.filter { $0.data.count <= 2 }.count > 20) }
    }

    @Test("Remuxing a fixture through the writer keeps packets and final granule")
    func remux() throws {
        let (head, packets) = try OggOpusReader.readFile(
            path: Self.fixtures.appendingPathComponent("burst-dtx.opus").path)
        var writer = try OggOpusWriter(head: head, tags: OpusTags(vendor: "remux"))
        var bytes: [UInt8] = []
        for packet in packets { bytes += try writer.write(packet: packet.data) }
        let final = try #require(packets.last?.granulePosition)
        bytes += writer.finish(trimming: Int(writer.granulePosition - final))
        let again = try OggOpusReader.read(bytes)
        #expect(again.head == head)
        #expect(again.packets.map(\.data) == packets.map(\.data))
        #expect(again.packets.last?.granulePosition == final)
    }
}
