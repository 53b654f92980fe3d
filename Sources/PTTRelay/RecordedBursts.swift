import NIOCore
import PTTCore

/// Recorded bursts on their way to the recorder: the open buffers of recorded channels, whose new packets are
/// handed over every ``handOffInterval`` and whose end follows their last packets. On the relay's event loop.
final class RecordedBursts {
    /// How often a recorded burst's new packets go to the recorder (a crash loses at most this, plus what the
    /// recorder has not put on a page yet).
    static let handOffInterval = TimeAmount.milliseconds(250)

    /// Open buffers whose packets go to a recording.
    private var recorded: [BurstBuffer] = []
    private var timer: RepeatedTask?
    private let eventLoop: EventLoop
    private let metrics: RelayMetrics
    /// Where recorded bursts' packets go.
    var sink: (@Sendable (RecordingHandOff) -> Void)?

    init(eventLoop: EventLoop, metrics: RelayMetrics) {
        self.eventLoop = eventLoop
        self.metrics = metrics
    }

    /// A burst of a recorded channel started: its packets go to the recorder from now on.
    func start(_ buffer: BurstBuffer, key: UInt64) {
        buffer.recordingKey = key
        buffer.handedOff = buffer.firstRetained
        recorded.append(buffer)
        if timer == nil {
            let recordings = NIOLoopBound(WeakReference(self), eventLoop: eventLoop)
            timer = eventLoop.scheduleRepeatedTask(
                initialDelay: Self.handOffInterval, delay: Self.handOffInterval
            ) { _ in recordings.value.object?.handOffAll() }
        }
    }

    /// The burst ended: the rest of its packets, then its end, go to the recorder.
    func stop(_ buffer: BurstBuffer) {
        guard let key = buffer.recordingKey else { return }
        handOff(buffer, key: key)
        sink?(.ended(key: key))
        buffer.recordingKey = nil
        if let at = recorded.firstIndex(where: { $0 === buffer }) { recorded.remove(at: at) }
        if recorded.isEmpty {
            timer?.cancel()
            timer = nil
        }
    }

    /// Hands every recorded burst's new packets to the recorder (the hand-off timer).
    private func handOffAll() {
        for buffer in recorded {
            if let key = buffer.recordingKey { handOff(buffer, key: key) }
        }
    }

    /// Hands the packets kept since the last hand-off to the recorder (counting those a bound dropped first).
    private func handOff(_ buffer: BurstBuffer, key: UInt64) {
        let lost = max(0, buffer.firstRetained - buffer.handedOff)
        let from = max(buffer.handedOff, buffer.firstRetained)
        guard from < buffer.endIndex || lost > 0 else { return }
        var packets: [RecordedPacket] = []
        packets.reserveCapacity(buffer.endIndex - from)
        for index in from..<buffer.endIndex {
            buffer.withPacket(index) { entry, payload in
                packets.append(RecordedPacket(payload: Array(payload), timestamp: entry.timestamp))
            }
        }
        buffer.handedOff = buffer.endIndex
        if lost > 0 { metrics.catchUp.recordingLost.increment(by: Int64(lost)) }
        sink?(.packets(key: key, packets, lost: lost))
    }

    /// The relay closes: what recorded bursts kept goes to the recorder, with their end, and the timer stops.
    func stopAll() {
        for buffer in recorded { stop(buffer) }
        sink = nil
        timer?.cancel()
        timer = nil
    }
}
