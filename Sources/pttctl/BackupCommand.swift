import ArgumentParser
import Foundation
import PTTKit

/// `pttctl backup FILE`: a consistent copy of the running pttd's database (`GET /api/backup`).
struct BackupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Save a consistent copy of pttd's database while it serves (restore it with pttd --restore).",
        discussion: """
            The copy holds users (hashed secrets), channels, memberships with their push tokens, stored \\
            announcements, sign-in links and the index of recordings; the recordings' audio files are in \\
            DATA/recordings and are copied with any file tool. FILE is written under a temporary name and \\
            renamed, so it is never half written.
            """)
    @OptionGroup var admin: AdminOptions
    @Argument(help: "Where to write the copy (a SQLite file).") var file: String

    func run() async throws {
        let client = try admin.client()
        let bytes = try await adminCall {
            try await client.getBytes("/api/backup", limit: (1 << 30) + (1 << 20), timeout: .seconds(600))
        }
        guard bytes.starts(with: Array("SQLite format 3\u{0}".utf8)) else {
            throw ValidationError("the server's answer is not a SQLite database; nothing written")
        }
        let temporary = file + ".partial"
        do {
            try Data(bytes).write(to: URL(fileURLWithPath: temporary), options: .atomic)
            if FileManager.default.fileExists(atPath: file) { try FileManager.default.removeItem(atPath: file) }
            try FileManager.default.moveItem(atPath: temporary, toPath: file)
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            throw ValidationError("cannot write \(file): \(error.localizedDescription)")
        }
        print("backed up \(bytes.count) bytes to \(file) (restore: pttd --data DIR --restore \(file))")
    }
}
