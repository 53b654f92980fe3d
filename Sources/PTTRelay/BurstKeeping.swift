import NIOCore
import PTTCore

/// What the relay keeps of talk bursts, and what it does with them: the catch-up settings, every kept buffer (the
/// current burst of each channel, and ended ones still being played) with their bytes counted against the server's
/// bound, the members playing kept packets and the timer that paces them (`BurstKeeping+Playbacks.swift`), and the
/// recorded bursts on their way to the recorder (``RecordedBursts``).
///
/// Owned by the ``MediaRelay`` and used only on its event loop.
final class BurstKeeping {
    /// How often kept packets go out to the members playing them: often, a few at a time (at most
    /// ``packetsPerTick`` for everyone), so a live packet never waits behind a long run of them.
    static let playbackTick = TimeAmount.milliseconds(2)
    /// The most kept packets sent to one member per tick (a member far behind never takes a whole tick).
    static let maxPlaybackPacketsPerMember = 8
    /// A tick that comes late sends what the ticks it missed would have, up to this many ticks' worth (50 ms):
    /// a long stall does not end in one long run of kept packets ahead of the live ones.
    static let maxTicksMadeUp = 25

    private(set) var configuration: CatchUpConfiguration
    /// A burst keeps packets from this long at most (the floor's longest talk time, and a margin).
    private(set) var maxDuration: TimeAmount
    /// Every buffer alive: open ones, and closed ones with players.
    private(set) var buffers: [BurstBuffer] = []
    /// Bytes of every buffer in `buffers`.
    private(set) var totalBytes = 0
    /// Members with a playback, in the order they started.
    var players: [RelayMember] = []
    /// Where the next playback tick starts in `players` (each tick goes on where the last one's budget ran out).
    var nextPlayer = 0
    /// Runs every ``playbackTick`` while anybody plays.
    var timer: RepeatedTask?
    /// When the last playback tick ran (nil: no tick since the timer started).
    var lastTick: NIODeadline?
    /// Recorded bursts' packets on their way to the recorder.
    let recordings: RecordedBursts

    let eventLoop: EventLoop
    let metrics: RelayMetrics
    /// The relay's monotonic time (the relay passes on the one tests set).
    var clock: () -> NIODeadline = { NIODeadline.now() }
    /// The relay's socket handler while it is in the pipeline: kept packets are written through it.
    weak var handler: MediaRelayHandler?
    /// Told when a replay ends (the relay reports it to the control plane).
    var replayEnded: ((RelayMember, _ burst: Int64, PlaybackOutcome) -> Void)?

    init(configuration: CatchUpConfiguration, maxDuration: Duration, eventLoop: EventLoop, metrics: RelayMetrics) {
        self.configuration = configuration
        self.maxDuration = .nanoseconds(maxDuration.nanoseconds)
        self.eventLoop = eventLoop
        self.metrics = metrics
        self.recordings = RecordedBursts(eventLoop: eventLoop, metrics: metrics)
    }

    /// A configuration reload: the bounds apply from the next packet kept.
    func reconfigure(_ configuration: CatchUpConfiguration, maxDuration: Duration) {
        self.configuration = configuration
        self.maxDuration = .nanoseconds(maxDuration.nanoseconds)
    }

    /// Kept packets one playback tick may send, to every player together.
    var packetsPerTick: Int {
        max(1, configuration.maxPacketsPerSecond * Int(Self.playbackTick.nanoseconds) / 1_000_000_000)
    }

    /// Whether bursts are kept at all.
    var keepsBursts: Bool { configuration.mode != .off }

    func register(_ buffer: BurstBuffer) {
        buffers.append(buffer)
        totalBytes += buffer.byteCount
    }

    /// Forgets a buffer nobody needs any more (closed, no players).
    func releaseIfUnused(_ buffer: BurstBuffer) {
        guard !buffer.isOpen, buffer.players == 0, let at = buffers.firstIndex(where: { $0 === buffer }) else { return }
        totalBytes -= buffer.byteCount
        buffers.swapAt(at, buffers.count - 1)
        buffers.removeLast()
    }

    /// Adds a packet to a buffer and enforces the bounds: the buffer's own (bytes, duration), then the server's
    /// (the oldest packet of any buffer goes first). Returns how many packets were dropped.
    func append(
        _ payload: UnsafeRawBufferPointer, to buffer: BurstBuffer, timestamp: UInt32, marker: Bool, arrival: NIODeadline
    ) -> Int {
        let before = buffer.byteCount
        buffer.append(payload, timestamp: timestamp, marker: marker, arrival: arrival)
        var dropped = 0
        while buffer.byteCount > configuration.channelMaxBytes
            || (buffer.oldestArrival.map { arrival - $0 > maxDuration } ?? false)
        {
            guard buffer.dropOldest() else { break }
            dropped += 1
        }
        totalBytes += buffer.byteCount - before
        while totalBytes > configuration.serverMaxBytes, let oldest = oldestBuffer() {
            let size = oldest.byteCount
            oldest.dropOldest()
            totalBytes -= size - oldest.byteCount
            dropped += 1
        }
        return dropped
    }

    /// A buffer whose burst ended: members still catching up finish it; it goes when the last one has.
    func close(_ buffer: BurstBuffer) {
        buffer.isOpen = false
        if buffer.recordingKey != nil { recordings.stop(buffer) }
        releaseIfUnused(buffer)
    }

    /// The relay closes: what recorded bursts kept goes to the recorder, with their end, and the timers stop.
    func stop() {
        recordings.stopAll()
        replayEnded = nil
        timer?.cancel()
        timer = nil
    }

    /// The buffer whose oldest kept packet is the oldest of all.
    private func oldestBuffer() -> BurstBuffer? {
        var found: (BurstBuffer, NIODeadline)?
        for buffer in buffers {
            guard let arrival = buffer.oldestArrival else { continue }
            if found == nil || arrival < found!.1 { found = (buffer, arrival) }
        }
        return found?.0
    }
}
