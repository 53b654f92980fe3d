import AudioFiles
import Foundation
import PTTCore
import PTTKit
import PTTProtocol
import ServerTestSupport
import TestSupport
import Testing

@testable import PTTServer

/// Recorded channels: each burst an Ogg Opus file with a row, the history and exports of the admin API and
/// `pttctl`, retention, and replays to one member.
@Suite("Recording and history")
struct RecordingTests {
    typealias Packets = [(data: [UInt8], samples: Int)]

    /// A whole burst: floor, audio, release, idle. With `heardBy`, the release waits until that member has every
    /// packet: the relay has then handled them all (a release overtaking the last packets would end the burst
    /// before them).
    static func burst(_ speaker: Talker, _ packets: Packets, speed: Double = 5, heardBy: Talker? = nil) async throws {
        guard case .floorGranted = try await speaker.peer.request(.floorRequest(FloorCommand(channel: "deck"))) else {
            throw TestFailure("floor not granted")
        }
        try await ReplayTests.talk(speaker, packets, speed: speed)
        if let heardBy {
            let heard = await collect(heardBy.media, count: packets.count, timeout: .seconds(10))
            try #require(heard.count == packets.count, "the listener heard \(heard.count) of \(packets.count)")
        }
        _ = try await speaker.peer.request(.floorRelease(FloorCommand(channel: "deck")))
        _ = try await speaker.peer.next("floor-idle")
    }

    /// The channel's recorded bursts once `count` of them are complete.
    static func history(_ server: TestServer, count: Int) async throws -> [RecordedBurstInfo] {
        var bursts: [RecordedBurstInfo] = []
        try await eventually("\(count) recorded bursts") {
            bursts = try await server.admin.get("/api/channels/deck/bursts")
            return bursts.count == count && bursts.allSatisfy { $0.state == .complete }
        }
        return bursts
    }

    static func opusinfoAccepts(_ bytes: [UInt8]) async throws {
        guard let opusinfo = Tools.path("opusinfo") else { return }
        let file = TestServer.temporaryDirectory() + "/check.opus"
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        let info = try Subprocess(opusinfo, [file])
        #expect(try await info.waitForExit() == 0, "opusinfo: \(info.standardError)")
    }

    @Test("each burst is an Ogg Opus file with the packets and audio spoken; history lists them; export joins them")
    func recordedBursts() async throws {
        let fixtures = try ["burst-20ms-mono.opus", "burst-10ms-stereo.opus", "burst-60ms-mono.opus", "burst-dtx.opus"]
            .map { try Fixtures.opus($0) }
        try await withTestServer(configure: { $0.implicitFloorRequest = false }) { server in
            let members = try await RelayTests.crew(server, ["alice", "bob"])
            let switched: ChannelRecording = try await server.admin.put(
                "/api/channels/deck/recording", body: ChannelRecording(recording: true))
            #expect(switched.recording && switched.configured == false)
            let detail: ChannelDetail = try await server.admin.get("/api/channels/deck")
            #expect(detail.recording == true)
            for (index, fixture) in fixtures.enumerated() {
                try await Self.burst(members[index % 2], fixture.packets, heardBy: members[1 - index % 2])
            }
            let history = try await Self.history(server, count: fixtures.count)
            #expect(history.map(\.speaker) == ["bob", "alice", "bob", "alice"], "newest first")

            for (info, (channels, packets)) in zip(history.reversed(), fixtures) {
                let bytes = try await server.admin.getBytes("/api/bursts/\(info.id)/audio")
                let (head, read) = try OggOpusReader.read(bytes)
                #expect(head.channelCount == channels)
                let same = read.map(\.data) == packets.map(\.data)
                #expect(same, "burst \(info.id): \(read.count) packets read, \(packets.count) spoken")
                #expect(
                    try ReplayTests.decode(read.map(\.data), channels: channels)
                        == ReplayTests.decode(packets.map(\.data), channels: channels))
                #expect(info.packets == packets.count)
                #expect(info.durationMs == packets.reduce(0) { $0 + $1.samples } / 48)
                #expect(info.bytes == bytes.count)
                try await Self.opusinfoAccepts(bytes)
            }

            // One file of all, in order, each pause shortened to 300 ms (15 frames) at most.
            let export = try await server.admin.getBytes("/api/channels/deck/export?gapMs=300")
            let (head, joined) = try OggOpusReader.read(export)
            #expect(head.channelCount == 2)
            var position = 0
            for (index, (_, packets)) in fixtures.enumerated() {
                let start = (position...min(position + 15, joined.count)).first {
                    joined[$0...].prefix(packets.count).map(\.data) == packets.map(\.data)
                }
                #expect(start != nil, "burst \(index + 1) is not where the export should have it")
                #expect(index == 0 ? start == 0 : true)
                position = (start ?? position) + packets.count
            }
            #expect(position == joined.count, "nothing after the last burst")
            try await Self.opusinfoAccepts(export)

            // The same through pttctl, as an operator would.
            let admin = ["--url", server.admin.baseURL, "--token", try require_(server.server.adminToken)]
            let table = try await Subprocess.run("pttctl", ["history", "deck"] + admin)
            #expect(table.contains("alice") && table.contains("bob"), "\(table)")
            let out = TestServer.temporaryDirectory() + "/deck.ogg"
            _ = try await Subprocess.run(
                "pttctl", ["export", "deck", "--since", "1h", "--gap-ms", "300", "-o", out] + admin)
            let written = try OggOpusReader.read([UInt8](Data(contentsOf: URL(fileURLWithPath: out)))).packets
            let sameExport = written.map(\.data) == joined.map(\.data)
            #expect(sameExport, "pttctl export wrote \(written.count) packets, the API gave \(joined.count)")
            let one = TestServer.temporaryDirectory() + "/one.ogg"
            _ = try await Subprocess.run("pttctl", ["export", "--burst", "\(history[0].id)", "-o", one] + admin)
            #expect(
                try OggOpusReader.read([UInt8](Data(contentsOf: URL(fileURLWithPath: one)))).packets.count
                    == fixtures[3].packets.count)
            for member in members { await member.media.close() }
        }
    }

    @Test("a floor handed straight to a queued member records both bursts, however short")
    func handOffRecordsBoth() async throws {
        let packets: Packets = try tonePackets(5).map { (data: $0, samples: 960) }
        try await withTestServer(configure: {
            $0.implicitFloorRequest = false
            $0.recording.channels = ["deck"]
        }) { server in
            let members = try await RelayTests.crew(server, ["alice", "bob"])
            let (alice, bob) = (members[0], members[1])
            _ = try await alice.peer.request(.floorRequest(FloorCommand(channel: "deck")))
            try await ReplayTests.talk(alice, packets, speed: 5)
            #expect(await collect(bob.media, count: packets.count, timeout: .seconds(10)).count == packets.count)
            guard case .floorQueued = try await bob.peer.request(.floorRequest(FloorCommand(channel: "deck"))) else {
                throw TestFailure("bob not queued")
            }
            _ = try await alice.peer.request(.floorRelease(FloorCommand(channel: "deck")))
            _ = try await bob.peer.next("floor-granted")
            try await Self.burst(bob, packets, heardBy: alice)
            let bursts = try await Self.history(server, count: 2)
            #expect(bursts.map(\.speaker) == ["bob", "alice"])
            #expect(bursts.map(\.packets) == [5, 5])
            for member in members { await member.media.close() }
        }
    }

    @Test("an unrecorded channel records nothing, and the API says so")
    func notRecorded() async throws {
        try await withTestServer(configure: { $0.implicitFloorRequest = false }) { server in
            let members = try await RelayTests.crew(server, ["alice", "bob"])
            try await Self.burst(members[0], Array(try tonePackets(20).map { (data: $0, samples: 960) }))
            let bursts: [RecordedBurstInfo] = try await server.admin.get("/api/channels/deck/bursts")
            #expect(bursts.isEmpty)
            await #expect(throws: AdminError.self) { try await server.admin.getBytes("/api/channels/deck/export") }
            await #expect(throws: AdminError.self) { try await server.admin.getBytes("/api/bursts/1/audio") }
            await #expect(throws: AdminError.self) {
                let _: [RecordedBurstInfo] = try await server.admin.get("/api/channels/deck/bursts?since=-4")
            }
            for member in members { await member.media.close() }
        }
    }

    @Test("retention removes the oldest recordings, file and row together, to stay under the total size")
    func retentionBySize() async throws {
        let (_, mono) = try Fixtures.opus("burst-20ms-mono.opus")
        let part = Array(mono.prefix(100))
        try await withTestServer(configure: {
            $0.implicitFloorRequest = false
            $0.recording.channels = ["deck"]
            $0.recording.maxTotalBytes = 15_000
        }) { server in
            let members = try await RelayTests.crew(server, ["alice", "bob"])
            // Each burst is heard whole before its release: a release sent at once can overtake the last
            // packets (the server-side race in the notes), and the recording would be short.
            try await Self.burst(members[0], part, heardBy: members[1])
            let first = try await Self.history(server, count: 1)[0]
            #expect(first.bytes > 5_000 && first.bytes < 7_500, "a burst is \(first.bytes) bytes")
            let channel: ChannelDetail = try await server.admin.get("/api/channels/deck")
            let folder = server.data.recordings + "/" + channel.id
            #expect(FileManager.default.fileExists(atPath: "\(folder)/\(first.id).opus"))
            try await Self.burst(members[0], part, heardBy: members[1])
            _ = try await Self.history(server, count: 2)
            try await Self.burst(members[1], part, heardBy: members[0])
            let kept = try await Self.history(server, count: 2)
            #expect(!kept.map(\.id).contains(first.id))
            #expect(!FileManager.default.fileExists(atPath: "\(folder)/\(first.id).opus"))
            let files = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
            #expect(files == kept.map { "\($0.id).opus" }.sorted())
            for member in members { await member.media.close() }
        }
    }

    @Test("retention rules: by age, then oldest first by size; a burst being recorded stays")
    func retentionPolicy() {
        let now = Date(timeIntervalSince1970: 1_000_000)
        let policy = RetentionPolicy(maxAge: .seconds(3600), maxTotalBytes: 250)
        let bursts: [(id: Int64, startedAt: Date, bytes: Int, recording: Bool)] = [
            (3, now.addingTimeInterval(-60), 100, false),
            (1, now.addingTimeInterval(-7200), 10, false),
            (2, now.addingTimeInterval(-600), 100, false),
            (4, now.addingTimeInterval(-30), 100, false),
            (5, now.addingTimeInterval(-7300), 10, true),
        ]
        #expect(policy.expired(bursts, now: now) == [1, 2])
        #expect(RetentionPolicy(maxAge: .seconds(86_400), maxTotalBytes: 1000).expired(bursts, now: now).isEmpty)
    }

    @Test("a member asks to hear the last burst again: only it hears it; a live burst is refused or cancels it")
    func replayToOneMember() async throws {
        let (_, mono) = try Fixtures.opus("burst-20ms-mono.opus")
        // 1 s of audio, as much longer as the tests' waits are: the replay must still be under way when the live burst
        // takes the floor below, and under ThreadSanitizer the floor request once came after a 1 s replay had ended.
        let recorded = Array(mono.prefix(Int(50 * TestTimeouts.scale)))
        try await withTestServer(configure: {
            $0.implicitFloorRequest = false
            $0.recording.channels = ["deck"]
        }) { server in
            let members = try await RelayTests.crew(server, ["alice", "bob", "carol"])
            let (alice, bob, carol) = (members[0], members[1], members[2])
            try await Self.burst(alice, recorded, heardBy: bob)
            let history = try await Self.history(server, count: 1)
            _ = await collect(carol.media, count: recorded.count, timeout: .seconds(2))

            guard case .replaying(let replaying) = try await bob.peer.request(.replay(Replay(channel: "deck"))) else {
                throw TestFailure("not replaying")
            }
            #expect(replaying.burst == history[0].id && replaying.packets == recorded.count)
            #expect(replaying.speaker == "alice")
            let heard = await collect(bob.media, count: recorded.count, timeout: .seconds(5))
            let same = heard.map(\.payload) == recorded.map(\.data)
            #expect(same, "bob heard \(heard.count) of \(recorded.count)")
            #expect(heard.first?.marker == true)
            guard case .replayEnded(let ended) = try await bob.peer.next("replay-ended") else {
                throw TestFailure("no replay-ended")
            }
            #expect(ended.outcome == .ended && ended.burst == history[0].id)
            #expect(await collect(carol.media, count: 1, timeout: .milliseconds(300)).isEmpty, "only bob")

            // The same with `ptt listen --replay`, as a user would: the file holds the recorded burst.
            let daveSecret = try await server.addUser("dave")
            let out = TestServer.temporaryDirectory() + "/again.ogg"
            _ = try await Subprocess.run(
                "ptt",
                [
                    "listen", "--no-tls", "--channel", "deck", "--replay", "\(history[0].id)", "--out", out,
                    "--seconds", TestTimeouts.lifetime(20),
                ],
                environment: [
                    "PTT_HOME": TestServer.temporaryDirectory(), "PTT_SERVER": "127.0.0.1:\(server.endpoint.port)",
                    "PTT_USER": "dave", "PTT_SECRET": daveSecret,
                ])
            let again = try OggOpusReader.read([UInt8](Data(contentsOf: URL(fileURLWithPath: out)))).packets
            let sameAgain = again.map(\.data) == recorded.map(\.data)
            #expect(sameAgain, "ptt listen --replay wrote \(again.count) packets of \(recorded.count)")

            // Live audio wins: a replay is refused while a burst is live, and a burst cancels one under way.
            _ = try await alice.peer.request(.floorRequest(FloorCommand(channel: "deck")))
            await #expect(throws: ControlClientError.self) {
                _ = try await bob.peer.request(.replay(Replay(channel: "deck")))
            }
            _ = try await alice.peer.request(.floorRelease(FloorCommand(channel: "deck")))
            _ = try await alice.peer.next("floor-idle")
            _ = try await bob.peer.request(.replay(Replay(channel: "deck", burst: history[0].id)))
            _ = await collect(bob.media, count: 10, timeout: .seconds(2))
            let live: Packets = try tonePackets(10).map { (data: $0, samples: 960) }
            _ = try await alice.peer.request(.floorRequest(FloorCommand(channel: "deck")))
            try await ReplayTests.talk(alice, live)
            guard case .replayEnded(let cancelled) = try await bob.peer.next("replay-ended") else {
                throw TestFailure("no replay-ended")
            }
            #expect(cancelled.outcome == .cancelled)
            let after = await collect(bob.media, count: 40, timeout: .seconds(1))
            #expect(after.suffix(live.count).map(\.payload) == live.map(\.data), "bob heard the live burst")
            _ = try await alice.peer.request(.floorRelease(FloorCommand(channel: "deck")))
            await #expect(throws: ControlClientError.self) {
                _ = try await bob.peer.request(.replay(Replay(channel: "deck", burst: 9_999)))
            }
            for member in members { await member.media.close() }
        }
    }
}
