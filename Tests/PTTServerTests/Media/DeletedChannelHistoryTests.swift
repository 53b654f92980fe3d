import Foundation
import PTTCore
import PTTKit
import PTTProtocol
import ServerTestSupport
import TestSupport
import Testing

@testable import PTTServer

/// The recordings of a deleted channel stay findable by its old name (`?deleted=true`, `pttctl history NAME
/// --deleted`) until retention removes them.
@Suite("History of a deleted channel")
struct DeletedChannelHistoryTests {
    @Test("a deleted channel's recordings are listed by its old name, not as the new channel's, until retention")
    func deletedChannelRecordings() async throws {
        let (_, mono) = try Fixtures.opus("burst-20ms-mono.opus")
        let part = Array(mono.prefix(100))
        try await withTestServer(configure: {
            $0.implicitFloorRequest = false
            $0.recording.channels = ["deck"]
            // One burst of 100 packets (5 to 7.5 KB) fits, two do not: the next burst removes the older.
            $0.recording.maxTotalBytes = 9_000
        }) { server in
            let crew = try await RelayTests.crew(server, ["alice", "bob"])
            try await RecordingTests.burst(crew[0], part, heardBy: crew[1])
            let old = try await RecordingTests.history(server, count: 1)[0]
            let channel: ChannelDetail = try await server.admin.get("/api/channels/deck")
            let file = server.data.recordings + "/" + channel.id + "/\(old.id).opus"
            try await server.admin.perform(.DELETE, "/api/channels/deck")

            // Not the live channel's any more: a clear 404 that says where they are.
            let error = await #expect(throws: AdminError.self) {
                let _: [RecordedBurstInfo] = try await server.admin.get("/api/channels/deck/bursts")
            }
            #expect(
                error?.code == .notFound && error?.message.contains("deleted=true") == true,
                "\(String(describing: error))")
            // By the old name or id.
            let byName: [RecordedBurstInfo] = try await server.admin.get("/api/channels/deck/bursts?deleted=true")
            #expect(byName.map(\.id) == [old.id] && byName.first?.channel == "deck")
            let byID: [RecordedBurstInfo] = try await server.admin.get(
                "/api/channels/\(channel.id)/bursts?deleted=true")
            #expect(byID.map(\.id) == [old.id])
            #expect(try await server.admin.getBytes("/api/bursts/\(old.id)/audio").count == old.bytes)
            #expect(try await server.admin.getBytes("/api/channels/deck/export?deleted=true").count > 0)
            let admin = ["--url", server.admin.baseURL, "--token", try require_(server.server.adminToken)]
            let table = try await Subprocess.run("pttctl", ["history", "deck", "--deleted"] + admin)
            #expect(table.contains("\(old.id)") && table.contains("alice"), "\(table)")

            // A new channel of the same name: its history is its own; the deleted one's stay apart.
            let newCrew = try await RelayTests.crew(server, ["carol", "dave"])
            try await RecordingTests.burst(newCrew[0], part, heardBy: newCrew[1])
            try await eventually("retention to remove the deleted channel's burst") {
                try await server.metric("ptt_recordings_removed_total") >= 1
            }
            let live = try await RecordingTests.history(server, count: 1)
            #expect(live.map(\.speaker) == ["carol"])
            let gone: [RecordedBurstInfo] = try await server.admin.get("/api/channels/deck/bursts?deleted=true")
            #expect(gone.isEmpty, "retention removed the deleted channel's recording: \(gone.map(\.id))")
            #expect(!FileManager.default.fileExists(atPath: file))
            for member in crew + newCrew { await member.media.close() }
        }
    }

    @Test("deleted= takes true or false only")
    func badFlag() async throws {
        try await withTestServer { server in
            await #expect(throws: AdminError.self) {
                let _: [RecordedBurstInfo] = try await server.admin.get("/api/channels/deck/bursts?deleted=maybe")
            }
            let none: [RecordedBurstInfo] = try await server.admin.get("/api/channels/deck/bursts?deleted=true")
            #expect(none.isEmpty)
        }
    }
}
