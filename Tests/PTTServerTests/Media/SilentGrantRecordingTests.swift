import Foundation
import PTTCore
import PTTKit
import PTTProtocol
import ServerTestSupport
import TestSupport
import Testing

/// A burst is what a speaker said: a floor granted and released without a single packet is not a burst, and leaves
/// neither a file nor a row (PROTOCOL 8.14).
@Suite("Recording of a grant without audio")
struct SilentGrantRecordingTests {
    @Test("a grant released without audio records nothing; the next grant with one packet records one burst")
    func silentGrantLeavesNothing() async throws {
        let packet: RecordingTests.Packets = try tonePackets(1).map { (data: $0, samples: 960) }
        try await withTestServer(configure: {
            $0.implicitFloorRequest = false
            $0.recording.channels = ["deck"]
        }) { server in
            let members = try await RelayTests.crew(server, ["alice", "bob"])
            try await RecordingTests.burst(members[0], [])
            // The recorder handles bursts in order: once the second is complete, the first left whatever it left.
            try await RecordingTests.burst(members[1], packet, heardBy: members[0])
            try await eventually("the burst with audio to be recorded") {
                try await server.metric("ptt_recordings_completed_total") >= 1
            }
            let bursts: [RecordedBurstInfo] = try await server.admin.get("/api/channels/deck/bursts")
            #expect(bursts.map(\.speaker) == ["bob"], "only the grant that carried audio is a burst")
            #expect(bursts.map(\.packets) == [1])
            #expect(try await server.metric("ptt_recordings_started_total") == 1)
            let channel: ChannelDetail = try await server.admin.get("/api/channels/deck")
            let files = try FileManager.default.contentsOfDirectory(atPath: server.data.recordings + "/" + channel.id)
            #expect(files.sorted() == bursts.map { "\($0.id).opus" }, "one file, the burst with audio's")
            for member in members { await member.media.close() }
        }
    }
}
