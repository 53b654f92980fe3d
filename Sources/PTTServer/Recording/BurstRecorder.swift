import Foundation
import Logging
import NIOCore
import PTTCore
import PTTRelay
import PTTStore

/// Who spoke on which channel when a recorded burst started: what its row says.
struct BurstMeta: Sendable {
    var channel: ChannelID
    var channelName: String
    var speaker: String
    var speakerName: String
    var startedAt: Date
}

/// Writes recorded bursts to Ogg Opus files in `DATA/recordings` with a row each in the `burst` table, on a thread
/// of its own (file writes and syncs never delay a packet or a request), and removes them by the retention rules.
///
/// The plane says a burst is recorded (``begin(_:_:)``) before the relay hands over its packets
/// (``handle(_:)``), every quarter second, then its end. The row is added with the burst's first packets, the file
/// written page by page, and the row completed at the end: a crash leaves a row in `recording` state and a file
/// cut at its last page, which ``recover()`` closes at the next start.
final class BurstRecorder: @unchecked Sendable {
    // @unchecked: the mutable state is touched only on `eventLoop`.
    let eventLoop: EventLoop
    /// `DATA/recordings`.
    let directory: String
    let store: any Storage
    /// Changed by ``reconfigure(_:)`` (a configuration reload), on `eventLoop`.
    private(set) var retention: RetentionPolicy
    let metrics: RecordingMetrics
    let logger: Logger
    private let now: @Sendable () -> Date
    /// Bursts announced by the plane whose packets have not come yet, by key (a floor taken without a word sends
    /// none: such announcements go after ``announcementLifetime``).
    private var announced: [UInt64: (meta: BurstMeta, at: Date)] = [:]
    static let announcementLifetime: TimeInterval = 3600
    /// Bursts being written, by key.
    private var open: [UInt64: (row: RecordedBurst, file: RecordingFile)] = [:]
    private var retentionTimer: RepeatedTask?

    init(
        eventLoop: EventLoop, directory: String, store: any Storage, configuration: RecordingConfiguration,
        metrics: RecordingMetrics, logger: Logger, now: @escaping @Sendable () -> Date
    ) {
        self.eventLoop = eventLoop
        self.directory = directory
        self.store = store
        self.retention = RetentionPolicy(configuration)
        self.metrics = metrics
        self.logger = logger
        self.now = now
    }

    /// Enforces retention now and every hour.
    func startRetention() {
        eventLoop.execute {
            self.enforceRetention()
            self.retentionTimer = self.eventLoop.scheduleRepeatedTask(initialDelay: .hours(1), delay: .hours(1)) {
                [weak self] _ in self?.enforceRetention()
            }
        }
    }

    /// A configuration reload: new retention rules, enforced at once when they changed. Recordings being
    /// written go on.
    func reconfigure(_ configuration: RecordingConfiguration) -> EventLoopFuture<Void> {
        eventLoop.submit {
            let policy = RetentionPolicy(configuration)
            guard policy != self.retention else { return }
            self.retention = policy
            self.enforceRetention()
        }
    }

    /// A recorded burst starts: its packets will come under `key`. (The relay hands over a burst's first packets
    /// up to a quarter second later, possibly after the next burst was announced: announcements stay until their
    /// packets come or ``announcementLifetime`` passes.)
    func begin(_ key: UInt64, _ meta: BurstMeta) {
        eventLoop.execute {
            let now = self.now()
            self.announced = self.announced.filter { now.timeIntervalSince($0.value.at) < Self.announcementLifetime }
            self.announced[key] = (meta, now)
        }
    }

    /// What the relay hands over (on the relay's thread): queued to the recorder's.
    func handle(_ handOff: RecordingHandOff) {
        eventLoop.execute {
            switch handOff {
            case .packets(let key, let packets, let lost):
                if lost > 0 {
                    self.logger.warning("recorded burst lost packets to a bound", metadata: ["lost": "\(lost)"])
                }
                self.write(packets, key: key)
            case .ended(let key):
                self.announced[key] = nil
                self.end(key, state: .complete)
            }
        }
    }

    /// Finishes every open recording (the server stops).
    func close() async {
        try? await eventLoop.submit {
            self.retentionTimer?.cancel()
            for key in Array(self.open.keys) { self.end(key, state: .complete) }
            self.announced.removeAll()
        }.get()
    }

    // MARK: Writing

    private func write(_ packets: [RecordedPacket], key: UInt64) {
        guard !packets.isEmpty else { return }
        if open[key] == nil {
            guard let meta = announced.removeValue(forKey: key)?.meta else { return }
            do {
                open[key] = try create(meta, stereo: (packets[0].payload.first ?? 0) & 0x04 != 0)
            } catch {
                metrics.failures.increment()
                return logger.error(
                    "cannot start a recording", metadata: ["channel": "\(meta.channelName)", "error": "\(error)"])
            }
        }
        guard let (row, file) = open[key] else { return }
        do {
            try file.write(packets)
        } catch {
            metrics.failures.increment()
            logger.error("cannot write a recording", metadata: ["burst": "\(row.id)", "error": "\(error)"])
            end(key, state: .complete)
        }
    }

    /// The row first (it names the file), then the file.
    private func create(_ meta: BurstMeta, stereo: Bool) throws -> (row: RecordedBurst, file: RecordingFile) {
        let folder = "\(directory)/\(meta.channel)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let row = try store.insertBurst(
            RecordedBurst(
                id: 0, channel: meta.channel, channelName: meta.channelName, speaker: meta.speaker,
                speakerName: meta.speakerName, startedAt: meta.startedAt, file: "\(meta.channel)/{id}.opus"))
        let comments = [
            "TITLE=\(meta.channelName) #\(row.id)", "ARTIST=\(meta.speakerName)", "PTT_SPEAKER=\(meta.speaker)",
            "PTT_CHANNEL=\(meta.channelName)", "DATE=\(ISO8601DateFormatter().string(from: meta.startedAt))",
        ]
        let file = try RecordingFile(path: path(of: row), stereo: stereo, comments: comments)
        metrics.started.increment()
        logger.info(
            "recording a burst",
            metadata: ["burst": "\(row.id)", "channel": "\(meta.channelName)", "speaker": "\(meta.speaker)"])
        return (row, file)
    }

    private func end(_ key: UInt64, state: RecordingState) {
        guard let (row, file) = open.removeValue(forKey: key) else { return }
        do {
            try file.finish()
            let bytes = Self.size(of: file.path)
            try store.finishBurst(
                row.id, durationMs: file.durationMs, packets: file.packets, bytes: bytes, state: state)
            metrics.completed.increment()
            metrics.bytes.increment(by: Int64(bytes))
            logger.info(
                "burst recorded",
                metadata: [
                    "burst": "\(row.id)", "channel": "\(row.channelName)", "durationMs": "\(file.durationMs)",
                    "packets": "\(file.packets)", "bytes": "\(bytes)",
                ])
        } catch {
            metrics.failures.increment()
            logger.error("cannot finish a recording", metadata: ["burst": "\(row.id)", "error": "\(error)"])
        }
        enforceRetention()
    }

    // MARK: Files

    func path(of burst: RecordedBurst) -> String { "\(directory)/\(burst.file)" }

    static func size(of path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
    }

    /// Removes what the retention rules say, files first, then their rows.
    func enforceRetention() {
        do {
            // Most bursts end with everything within bounds: the totals say so without reading every row.
            let totals = try store.burstTotals()
            let cutoff = now().addingTimeInterval(-Double(retention.maxAge.components.seconds))
            guard totals.bytes > retention.maxTotalBytes || (totals.oldest.map { $0 < cutoff } ?? false) else { return }
            let bursts = try store.allBursts()
            let expired = retention.expired(
                bursts.map { ($0.id, $0.startedAt, $0.bytes, $0.state == .recording) }, now: now())
            guard !expired.isEmpty else { return }
            let byID = Dictionary(uniqueKeysWithValues: bursts.map { ($0.id, $0) })
            for id in expired {
                if let burst = byID[id] { try? FileManager.default.removeItem(atPath: path(of: burst)) }
            }
            try store.deleteBursts(expired)
            metrics.removed.increment(by: Int64(expired.count))
            logger.info("recordings removed by retention", metadata: ["count": "\(expired.count)"])
        } catch {
            logger.error("cannot apply recording retention", metadata: ["error": "\(error)"])
        }
    }
}
