import Foundation
import PTTProtocol
import PTTStore

/// `pttd --restore FILE`: puts a backup (`pttctl backup`) in place as the data directory's database, then exits;
/// the next start serves it (running any newer migrations).
///
/// The backup is checked first (a sound SQLite file of a schema this pttd knows). A database already in place
/// is replaced only with `force`, and kept beside it as `pttd.sqlite.before-restore-TIME`; never while a pttd
/// runs on the directory. The new file is copied under a temporary name, synced, and renamed into place, so a
/// crash leaves either the old database or the new one.
public enum DataRestore {
    public struct Outcome: Sendable {
        public var summary: BackupSummary
        /// Where the database that was in place went, if there was one.
        public var keptAs: String?
    }

    public enum RestoreError: Error, CustomStringConvertible {
        case running(Int32)
        case exists(String)
        case io(String)

        public var description: String {
            switch self {
            case .running(let pid): "pttd (pid \(pid)) is running on this data directory: stop it first"
            case .exists(let path):
                "\(path) exists: add --force to replace it (it is kept beside it as pttd.sqlite.before-restore-TIME)"
            case .io(let message): message
            }
        }
    }

    public static func restore(
        from backup: String, into data: DataDirectory, force: Bool, now: Date = Date()
    )
        throws -> Outcome
    {
        // A backup from `pttctl backup` is one self-contained file (no -wal beside it): checked read-only.
        let summary = try SQLiteStore.inspect(backup: backup)
        if let pid = runningDaemon(in: data) { throw RestoreError.running(pid) }
        let manager = FileManager.default
        let database = data.database
        let exists = manager.fileExists(atPath: database)
        if exists, !force { throw RestoreError.exists(database) }
        do {
            try data.create()
            let incoming = database + ".restoring"
            try? manager.removeItem(atPath: incoming)
            try manager.copyItem(atPath: backup, toPath: incoming)
            try sync(incoming)
            var keptAs: String?
            if exists {
                let stamp = ISO8601DateFormatter().string(from: now).replacingOccurrences(of: ":", with: "")
                let aside = database + ".before-restore-" + stamp
                try manager.moveItem(atPath: database, toPath: aside)
                keptAs = aside
                for suffix in ["-wal", "-shm"] where manager.fileExists(atPath: database + suffix) {
                    try manager.moveItem(atPath: database + suffix, toPath: aside + suffix)
                }
            }
            guard rename(incoming, database) == 0 else {
                throw RestoreError.io("cannot rename \(incoming) to \(database): \(String(cString: strerror(errno)))")
            }
            try sync(data.path)
            return Outcome(summary: summary, keptAs: keptAs)
        } catch let error as RestoreError {
            throw error
        } catch {
            throw RestoreError.io("cannot restore into \(data.path): \(error.localizedDescription)")
        }
    }

    /// The pid of a pttd that `runtime.json` names and that is still alive.
    static func runningDaemon(in data: DataDirectory) -> Int32? {
        guard let bytes = FileManager.default.contents(atPath: data.runtimeInfo),
            let info = try? JSONDecoder().decode(RuntimeInfo.self, from: bytes), info.pid > 0, kill(info.pid, 0) == 0,
            let command = try? String(contentsOfFile: "/proc/\(info.pid)/comm", encoding: .utf8),
            command.hasPrefix("pttd")
        else { return nil }
        return info.pid
    }

    private static func sync(_ path: String) throws {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw RestoreError.io("cannot open \(path) to sync it") }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else {
            throw RestoreError.io("cannot sync \(path): \(String(cString: strerror(errno)))")
        }
    }
}
