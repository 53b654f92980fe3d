import Foundation
import NIOCore
import PTTProtocol
import PTTStore

/// `GET /api/backup`: a consistent copy of the database, made while the server goes on (SQLite's online backup)
/// on a thread of its own (the recorder's: file work, never the plane's or a connection's), written to a
/// temporary file in the data directory, sent, and removed.
struct Backups: Sendable {
    let store: any Storage
    /// Where the temporary copy is made (the data directory: same disk as the database).
    let directory: String
    let eventLoop: EventLoop

    /// The most a backup sent through the admin API may hold; a larger database is copied by hand (OPERATIONS).
    static let maxBytes = 1 << 30

    func take() -> EventLoopFuture<AdminResponse> {
        let store = self.store
        let path = (directory as NSString).appendingPathComponent(".backup-\(UUID().uuidString).sqlite")
        return eventLoop.submit {
            defer { try? FileManager.default.removeItem(atPath: path) }
            let summary: BackupSummary
            do { summary = try store.backup(to: path) } catch {
                throw AdminError(.internal, "the backup failed: \(store.describe(error))")
            }
            let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            guard size <= Self.maxBytes else {
                throw AdminError(
                    .tooLarge, "the database is \(size >> 20) MiB, over the 1 GiB an API backup sends: see OPERATIONS")
            }
            guard let bytes = FileManager.default.contents(atPath: path) else {
                throw AdminError(.internal, "the backup file could not be read")
            }
            return AdminResponse(
                status: .ok, contentType: "application/vnd.sqlite3", body: [UInt8](bytes),
                headers: [("x-ptt-backup", summary.description)])
        }.recover { error in .error(error as? AdminError ?? AdminError(.internal, "\(error)")) }
    }
}
