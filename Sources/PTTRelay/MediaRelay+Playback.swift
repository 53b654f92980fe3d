import NIOCore
import PTTCore

extension MediaRelay {
    /// How often kept packets go out to the members playing them: often, a few at a time (at most
    /// ``BurstKeeping/packetsPerTick`` for everyone), so a live packet never waits behind a long run of them.
    static let playbackTick = TimeAmount.milliseconds(2)
    /// The most kept packets sent to one member per tick (a member far behind never takes a whole tick).
    static let maxPlaybackPacketsPerMember = 8

    // MARK: Keeping the current burst

    /// Keeps a packet the channel's members are sent (called for every forwarded packet while bursts are kept).
    func keep(
        _ payload: UnsafeRawBufferPointer, timestamp: UInt32, marker: Bool, from speaker: RelayMember, now: NIODeadline
    ) {
        let channel = speaker.channel
        guard let state = channels[channel] else { return }
        var buffer = state.burst
        // A former holder's late packets after its release (the floor's generation moved on) end its burst.
        let late = state.lateAudio?.ssrc == speaker.config.ssrc
        if let current = buffer,
            current.speakerSSRC != speaker.config.ssrc || (current.generation != state.generation && !late)
        {
            channels[channel]!.burst = nil
            close(current)
            buffer = nil
        }
        if buffer == nil {
            let fresh = BurstBuffer(channel: channel, speakerSSRC: speaker.config.ssrc, generation: state.generation)
            channels[channel]!.burst = fresh
            keeping.register(fresh)
            if let recording = state.recording, recording.generation == state.generation {
                startRecording(fresh, key: recording.key)
            }
            buffer = fresh
        }
        let dropped = keeping.append(payload, to: buffer!, timestamp: timestamp, marker: marker, arrival: now)
        if dropped > 0 { metrics.catchUp.evicted.increment(by: Int64(dropped)) }
    }

    /// The channel's kept burst, if its floor moved on (a new holder, or idle): it is closed.
    func settleBurst(_ channel: ChannelID) {
        if let ended = channels[channel]?.takeEndedBurst() { close(ended) }
    }

    /// A buffer whose burst ended: members still catching up finish it; it goes when the last one has.
    func close(_ buffer: BurstBuffer) {
        buffer.isOpen = false
        if buffer.recordingKey != nil { stopRecording(buffer) }
        keeping.releaseIfUnused(buffer)
    }

    /// Marks members as woken for the current floor generation of their channel.
    func woken(_ channel: ChannelID, _ members: [MemberID]) {
        guard let generation = channels[channel]?.generation else { return }
        for id in members {
            guard let member = membersByID[id], member.channel == channel else { continue }
            member.wokenGeneration = generation
        }
    }

    // MARK: Catch-up

    /// A member the relay could not send to (never heard, or silent for longer than the silence timeout) was just
    /// heard: if it missed packets of the current burst and may catch up, it gets them from the first it missed.
    /// `previouslyHeard` is nil when it is heard from a new address (a woken app's new socket): the copies that went
    /// to the old address until its silence timeout ran out never reached it, so it catches up from the start.
    func becameReachable(_ member: RelayMember, previouslyHeard: NIODeadline?, now: NIODeadline) {
        let mode = keeping.configuration.mode
        // A released burst, open only for its speaker's late packets (the release grace), starts no catch-up.
        guard mode != .off, member.playback == nil, let buffer = channels[member.channel]?.burst, buffer.isOpen,
            channels[member.channel]?.lateAudio == nil, buffer.speakerSSRC != member.config.ssrc, !buffer.isEmpty
        else { return }
        if mode == .woken, member.wokenGeneration != buffer.generation { return }
        var from = buffer.firstRetained
        // Copies went out to it until its silence timeout ran out.
        if let heard = previouslyHeard { from = max(from, buffer.firstIndex(arrivedAfter: heard + silenceTimeout)) }
        guard from < buffer.endIndex else { return }
        let origin = buffer.entry(from).timestamp
        startPlayback(
            Playback(
                kind: .catchUp, buffer: buffer, next: from,
                pacer: PlaybackPacer(origin: origin, start: now, speed: keeping.configuration.speed),
                timestampBase: origin),
            for: member)
        metrics.catchUp.started.increment()
        logger.debug(
            "member catches up with the current burst",
            metadata: [
                "member": "\(member.config.id)", "from": "\(from)", "kept": "\(buffer.endIndex - buffer.firstRetained)",
            ])
    }

    // MARK: Playbacks

    func startPlayback(_ playback: Playback, for member: RelayMember) {
        if member.playback != nil { endPlayback(of: member, .cancelled) }
        playback.buffer.players += 1
        member.playback = playback
        keeping.players.append(member)
        if keeping.timer == nil {
            keeping.timer = eventLoop.scheduleRepeatedTask(
                initialDelay: .zero, delay: Self.playbackTick
            ) { [weak self] _ in self?.playbackTick() }
        }
    }

    /// Ends a member's playback: counted, its buffer released when nobody needs it, and the timer stopped when
    /// nobody plays.
    func endPlayback(of member: RelayMember, _ outcome: PlaybackOutcome, now: NIODeadline? = nil) {
        guard let playback = member.playback else { return }
        let now = now ?? clock()
        member.playback = nil
        playback.buffer.players -= 1
        keeping.releaseIfUnused(playback.buffer)
        if let at = keeping.players.firstIndex(where: { $0 === member }) { keeping.players.remove(at: at) }
        metrics.catchUp.finished(playback.kind, outcome)
        if playback.kind == .catchUp, outcome != .cancelled, let arrival = playback.lastArrival {
            metrics.catchUp.lag.record(.nanoseconds(max(0, (now - arrival).nanoseconds)))
        }
        if case .replay(let id) = playback.kind {
            report?(.replayEnded(member.config.id, channel: member.channel, burst: id, outcome: outcome))
        }
        if keeping.players.isEmpty {
            keeping.timer?.cancel()
            keeping.timer = nil
        }
    }

    /// Stops every playback in a channel (a new burst started: live wins).
    func cancelPlaybacks(in channel: ChannelID) {
        for member in keeping.players where member.channel == channel { endPlayback(of: member, .cancelled) }
    }

    /// Sends the members what of their playback is due, within the tick's budget (going on, the next tick, with
    /// the member where it ran out), and ends the playbacks that are done.
    func playbackTick() {
        guard let handler else { return }
        let now = clock()
        var done: [(RelayMember, PlaybackOutcome)] = []
        var budget = keeping.packetsPerTick
        let players = keeping.players
        let first = keeping.nextPlayer % max(1, players.count)
        for turn in 0..<players.count {
            let member = players[(first + turn) % players.count]
            guard budget > 0 else {
                keeping.nextPlayer = (first + turn) % players.count
                break
            }
            guard membersByID[member.config.id] === member, var playback = member.playback else {
                done.append((member, .cancelled))
                continue
            }
            let buffer = playback.buffer
            if playback.next < buffer.firstRetained {
                metrics.catchUp.skipped.increment(by: Int64(buffer.firstRetained - playback.next))
                playback.next = buffer.firstRetained
            }
            var sent = 0
            while playback.next < buffer.endIndex, sent < min(budget, Self.maxPlaybackPacketsPerMember),
                playback.pacer.isDue(buffer.entry(playback.next).timestamp, now: now)
            {
                send(playback.next, of: playback, to: member, via: handler)
                playback.lastArrival = buffer.entry(playback.next).arrival
                playback.next += 1
                sent += 1
            }
            playback.sent += sent
            budget -= sent
            member.playback = playback
            if sent > 0 {
                if playback.kind == .catchUp {
                    metrics.catchUp.packets.increment(by: Int64(sent))
                } else {
                    metrics.catchUp.replayPackets.increment(by: Int64(sent))
                }
            }
            if playback.next >= buffer.endIndex {
                done.append((member, buffer.isOpen && playback.kind == .catchUp ? .live : .ended))
            }
        }
        handler.flush()
        for (member, outcome) in done { endPlayback(of: member, outcome, now: now) }
    }

    /// Writes one kept packet to one member: its sequence number, the playback's timestamp, the speaker in CSRC.
    private func send(_ index: Int, of playback: Playback, to listener: RelayMember, via handler: MediaRelayHandler) {
        guard listener.rawAddress.length != 0 else { return }
        playback.buffer.withPacket(index) { entry, payload in
            let maxLength = 16 + payload.count + MemberCrypto.maxTrailer
            let sequence = listener.nextSequence
            listener.nextSequence &+= 1
            let timestamp = playback.timestamp(of: entry)
            let csrc = playback.buffer.speakerSSRC
            let crypto = listener.crypto
            let listenSSRC = listener.config.listenSSRC
            let sent = handler.write(to: listener, maxLength: maxLength) { out in
                crypto.writeCopy(
                    into: out, marker: entry.marker, sequence: sequence, timestamp: timestamp, ssrc: listenSSRC,
                    csrc: csrc, payload: payload)
            }
            if sent { metrics.forwarded.increment() } else { metrics.dropped(.protectFailed) }
        }
    }
}
