import Foundation
import PTTKit
import PTTProtocol
import ServerTestSupport
import TestSupport
import Testing

/// `GET /api/backup` (`pttctl backup`) while the server serves, and `pttd --restore` into a new data directory.
@Suite("Backup and restore", .timeLimit(.minutes(2)))
struct BackupTests {
    static let sqliteHeader = Array("SQLite format 3\u{0}".utf8)

    @Test("a backup taken while members join restores into a new data directory that serves the same data")
    func backupUnderLoad() async throws {
        let data = TestServer.temporaryDirectory()
        let backup = TestServer.temporaryDirectory() + "/pttd-backup.sqlite"
        var secrets: [String: String] = [:]
        try await withTestServer(data: data) { server in
            for index in 0..<8 { secrets["crew\(index)"] = try await server.addUser("crew\(index)") }
            for (name, secret) in secrets {
                let peer = try await server.connect(name, secret: secret, device: "\(name)-phone")
                _ = try await peer.request(.join(Join(channel: "deck")))
                await peer.client.close()
            }
            // Joins go on (other channels) while the backup is taken.
            let loadSecret = try await server.addUser("load")
            let load = Task {
                // 4 devices of 15 channels each (a device may be in at most 16).
                for device in 0..<4 {
                    let peer = try await server.connect("load", secret: loadSecret, device: "load-\(device)")
                    for index in 0..<15 { _ = try await peer.request(.join(Join(channel: "load-\(device)-\(index)"))) }
                    await peer.client.close()
                }
            }
            let bytes = try await server.admin.getBytes("/api/backup")
            try await load.value
            #expect(bytes.starts(with: Self.sqliteHeader))
            try Data(bytes).write(to: URL(fileURLWithPath: backup))
        }

        let restored = TestServer.temporaryDirectory()
        let output = try await Subprocess.run("pttd", ["--data", restored, "--restore", backup])
        #expect(output.contains("9 users"), "\(output)")
        let memberships = try require_(
            output.firstMatch(of: /, (\d+) memberships/).flatMap { Int($0.1) }, "memberships in: \(output)")
        #expect(memberships >= 8 && memberships <= 8 + 60)

        try await withTestServer(data: restored) { server in
            let users: [UserStatus] = try await server.admin.get("/api/users")
            #expect(Set(users.map(\.name)) == Set(secrets.keys).union(["load"]))
            let deck: ChannelDetail = try await server.admin.get("/api/channels/deck")
            #expect(deck.members.count == 8)
            let channels: [ChannelSummary] = try await server.admin.get("/api/channels")
            #expect(channels.reduce(0) { $0 + $1.members } == memberships, "every membership of the backup, no other")
            for (name, secret) in secrets {
                let peer = try await server.connect(name, secret: secret, device: "\(name)-phone")
                #expect(peer.client.welcome.memberships.map(\.channel.name) == ["deck"])
                await peer.client.close()
            }
        }
    }

    @Test("pttctl backup writes the copy; restore refuses a database in place without --force and keeps it with it")
    func commands() async throws {
        let directory = TestServer.temporaryDirectory()
        let file = directory + "/copy.sqlite"
        try await withTestServer { server in
            try await server.addUser("jane")
            let info = try require_(server.server.runtimeInfo)
            let output = try await Subprocess.run(
                "pttctl",
                ["--url", info.adminURL, "--token", try require_(server.server.adminToken), "backup", file])
            #expect(output.hasPrefix("backed up "))
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: file)))
            #expect(bytes.starts(with: Self.sqliteHeader))
            #expect(!FileManager.default.fileExists(atPath: file + ".partial"))
        }
        let target = TestServer.temporaryDirectory()
        try await withTestServer(data: target) { server in try await server.addUser("old") }
        await #expect(throws: (any Error).self) {
            _ = try await Subprocess.run("pttd", ["--data", target, "--restore", file])
        }
        let output = try await Subprocess.run("pttd", ["--data", target, "--restore", file, "--force"])
        #expect(output.contains("kept as"))
        let kept = try FileManager.default.contentsOfDirectory(atPath: target).filter {
            $0.hasPrefix("pttd.sqlite.before-restore-")
        }
        #expect(!kept.isEmpty)
        try await withTestServer(data: target) { server in
            let users: [UserStatus] = try await server.admin.get("/api/users")
            #expect(users.map(\.name) == ["jane"])
        }
    }

    @Test("a file that is not a database, or a pttd still running on the directory, is refused with the reason")
    func refusals() async throws {
        let junk = TestServer.temporaryDirectory() + "/junk.sqlite"
        try Data("not a database at all".utf8).write(to: URL(fileURLWithPath: junk))
        let child = try Subprocess("pttd", ["--data", TestServer.temporaryDirectory(), "--restore", junk])
        #expect(try await child.waitForExit() != 0)
        #expect(child.standardError.contains("is not a pttd database"))

        let copy = TestServer.temporaryDirectory() + "/copy.sqlite"
        try await withTestServer { server in
            try await server.addUser("jane")
            try Data(try await server.admin.getBytes("/api/backup")).write(to: URL(fileURLWithPath: copy))
        }
        let data = TestServer.temporaryDirectory()
        let (daemon, _) = try await Subprocess.startDaemon(data: data)
        let busy = try Subprocess("pttd", ["--data", data, "--restore", copy, "--force"])
        #expect(try await busy.waitForExit() != 0)
        #expect(busy.standardError.contains("is running on this data directory"))
        daemon.signal(SIGTERM)
        try await daemon.waitForExit()
    }
}
