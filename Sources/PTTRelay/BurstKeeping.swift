import NIOCore
import PTTCore

/// What the relay keeps of talk bursts, and the members playing kept packets: the catch-up settings, every kept
/// buffer (the current burst of each channel, and ended ones still being played) with their bytes counted against
/// the server's bound, and the timer that paces playbacks.
struct BurstKeeping {
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
    /// Runs every ``MediaRelay/playbackTick`` while anybody plays.
    var timer: RepeatedTask?
    /// Open buffers whose packets go to a recording, handed over every ``MediaRelay/recordingHandOff``.
    var recorded: [BurstBuffer] = []
    var recordingTimer: RepeatedTask?

    init(configuration: CatchUpConfiguration, maxDuration: Duration) {
        self.configuration = configuration
        self.maxDuration = .nanoseconds(maxDuration.nanoseconds)
    }

    /// A configuration reload: the bounds apply from the next packet kept.
    mutating func reconfigure(_ configuration: CatchUpConfiguration, maxDuration: Duration) {
        self.configuration = configuration
        self.maxDuration = .nanoseconds(maxDuration.nanoseconds)
    }

    /// Kept packets one playback tick may send, to every player together.
    var packetsPerTick: Int {
        max(1, configuration.maxPacketsPerSecond * Int(MediaRelay.playbackTick.nanoseconds) / 1_000_000_000)
    }

    /// Whether bursts are kept at all.
    var keepsBursts: Bool { configuration.mode != .off }

    mutating func register(_ buffer: BurstBuffer) {
        buffers.append(buffer)
        totalBytes += buffer.byteCount
    }

    /// Forgets a buffer nobody needs any more (closed, no players).
    mutating func releaseIfUnused(_ buffer: BurstBuffer) {
        guard !buffer.isOpen, buffer.players == 0, let at = buffers.firstIndex(where: { $0 === buffer }) else { return }
        totalBytes -= buffer.byteCount
        buffers.swapAt(at, buffers.count - 1)
        buffers.removeLast()
    }

    /// Adds a packet to a buffer and enforces the bounds: the buffer's own (bytes, duration), then the server's
    /// (the oldest packet of any buffer goes first). Returns how many packets were dropped.
    mutating func append(
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
