import NIOCore
import PTTCore

extension MediaRelay {
    /// How often a recorded burst's new packets go to the recorder (a crash loses at most this, plus what the
    /// recorder has not put on a page yet).
    static let recordingHandOff = TimeAmount.milliseconds(250)

    /// The channel's current floor holder's burst is recorded under `key`.
    func record(_ channel: ChannelID, key: UInt64) {
        guard let generation = channels[channel]?.generation else { return }
        channels[channel]!.recording = (key, generation)
    }

    /// A burst of a recorded channel started: its packets go to the recorder from now on.
    func startRecording(_ buffer: BurstBuffer, key: UInt64) {
        buffer.recordingKey = key
        buffer.handedOff = buffer.firstRetained
        keeping.recorded.append(buffer)
        if keeping.recordingTimer == nil {
            keeping.recordingTimer = eventLoop.scheduleRepeatedTask(
                initialDelay: Self.recordingHandOff, delay: Self.recordingHandOff
            ) { [weak self] _ in self?.handOffRecordings() }
        }
    }

    /// The burst ended: the rest of its packets, then its end, go to the recorder.
    func stopRecording(_ buffer: BurstBuffer) {
        guard let key = buffer.recordingKey else { return }
        handOff(buffer, key: key)
        recordingSink?(.ended(key: key))
        buffer.recordingKey = nil
        if let at = keeping.recorded.firstIndex(where: { $0 === buffer }) { keeping.recorded.remove(at: at) }
        if keeping.recorded.isEmpty {
            keeping.recordingTimer?.cancel()
            keeping.recordingTimer = nil
        }
    }

    private func handOffRecordings() {
        for buffer in keeping.recorded {
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
        recordingSink?(.packets(key: key, packets, lost: lost))
    }

    // MARK: Replay

    /// Plays a recorded burst to one member, in real time, on its stream; refused (reported as cancelled) while
    /// its channel's floor is taken or the member catches up with a burst.
    func replay(_ burst: Int64, speakerSSRC: UInt32, packets: [RecordedPacket], to id: MemberID) {
        guard let member = membersByID[id] else { return }
        let now = clock()
        let live = channels[member.channel]?.holder != nil || member.playback?.kind == .catchUp
        guard !live, let first = packets.first else {
            report?(.replayEnded(id, channel: member.channel, burst: burst, outcome: .cancelled))
            return
        }
        let buffer = BurstBuffer(channel: member.channel, speakerSSRC: speakerSSRC, generation: 0)
        buffer.isOpen = false
        for (index, packet) in packets.enumerated() {
            buffer.append(packet.payload, timestamp: packet.timestamp, marker: index == 0, arrival: now)
        }
        keeping.register(buffer)
        let base = channels[member.channel]?.nextBurstTimestamp(now: now)
        startPlayback(
            Playback(
                kind: .replay(id: burst), buffer: buffer, next: buffer.firstRetained,
                pacer: PlaybackPacer(origin: first.timestamp, start: now, speed: 1), timestampBase: base ?? 0),
            for: member)
        metrics.catchUp.replays.increment()
    }
}
