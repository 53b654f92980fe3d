import AudioFiles
import Foundation
import PTTCore
import PTTRelay

#if canImport(Glibc)
import Glibc
#endif

extension BurstRecorder {
    /// At start, before anything is recorded: a recording left open by a crash is closed (its packets up to its last
    /// whole page rewritten with an end-of-stream page, its row completed as `recovered`, or both removed when no
    /// packet reached the disk); rows whose file is gone are removed, and files no row names.
    func recover() throws {
        let bursts = try store.allBursts()
        var gone: [Int64] = []
        for burst in bursts {
            let path = path(of: burst)
            guard FileManager.default.fileExists(atPath: path) else {
                gone.append(burst.id)
                continue
            }
            guard burst.state == .recording else { continue }
            let (packets, stereo) = Self.readPackets(path)
            guard !packets.isEmpty else {
                try? FileManager.default.removeItem(atPath: path)
                gone.append(burst.id)
                continue
            }
            do {
                try close(burst, at: path, packets: packets, stereo: stereo)
            } catch {
                // One file that cannot be closed is left as it is (and said so); the server starts anyway.
                metrics.failures.increment()
                logger.error(
                    "cannot close a recording a crash left open",
                    metadata: ["burst": "\(burst.id)", "error": "\(error)"])
            }
        }
        try store.deleteBursts(gone)
        if !gone.isEmpty {
            logger.notice("removed recordings whose file was gone", metadata: ["count": "\(gone.count)"])
        }
        removeStrayFiles(named: Set(bursts.filter { !gone.contains($0.id) }.map(\.file)))
    }

    /// Rewrites a cut recording's packets as a whole stream in its place, and completes its row.
    private func close(_ burst: RecordedBurst, at path: String, packets: [RecordedPacket], stereo: Bool) throws {
        let temporary = path + ".recovering"
        let file = try RecordingFile(path: temporary, stereo: stereo, comments: ["PTT_RECOVERED=1"])
        try file.write(packets)
        try file.finish()
        // rename(2): the closed file takes the place of the cut one at once (a crash now leaves one or the other).
        guard rename(temporary, path) == 0 else {
            throw RecoveryError(message: "cannot rename \(temporary) to \(path): errno \(errno)")
        }
        try store.finishBurst(
            burst.id, durationMs: file.durationMs, packets: file.packets, bytes: Self.size(of: path),
            state: .recovered)
        metrics.recovered.increment()
        logger.notice(
            "closed a recording a crash left open",
            metadata: ["burst": "\(burst.id)", "packets": "\(file.packets)", "durationMs": "\(file.durationMs)"])
    }

    /// Files in the recordings directory that no row names (a crash between removing a file's row and the file).
    private func removeStrayFiles(named: Set<String>) {
        let manager = FileManager.default
        guard let folders = try? manager.contentsOfDirectory(atPath: directory) else { return }
        for folder in folders {
            for name in (try? manager.contentsOfDirectory(atPath: "\(directory)/\(folder)")) ?? [] {
                let relative = "\(folder)/\(name)"
                if !named.contains(relative) { try? manager.removeItem(atPath: "\(directory)/\(relative)") }
            }
        }
    }

    /// The packets of a recording, with timestamps from their durations (from 0), as far as the file can be read:
    /// a file cut inside a page gives the packets of its whole pages. And whether it is stereo.
    static func readPackets(_ path: String) -> (packets: [RecordedPacket], stereo: Bool) {
        guard let reader = try? OggOpusFileReader(path: path), let head = try? reader.readHeaders() else {
            return ([], false)
        }
        var packets: [RecordedPacket] = []
        var timestamp: UInt32 = 0
        while let packet = try? reader.next() {
            guard let samples = packet.sampleCount else { continue }
            packets.append(RecordedPacket(payload: packet.data, timestamp: timestamp))
            timestamp &+= UInt32(samples)
        }
        return (packets, head.channelCount == 2)
    }
}

/// A recording could not be closed at start.
struct RecoveryError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
