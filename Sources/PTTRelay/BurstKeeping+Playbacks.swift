import NIOCore
import PTTCore

extension BurstKeeping {
    /// Starts a member's playback (ending the one it had): sent from the next tick on.
    func startPlayback(_ playback: Playback, for member: RelayMember) {
        if member.playback != nil { endPlayback(of: member, .cancelled) }
        playback.buffer.players += 1
        member.playback = playback
        players.append(member)
        if timer == nil {
            let keeping = NIOLoopBound(WeakReference(self), eventLoop: eventLoop)
            timer = eventLoop.scheduleRepeatedTask(initialDelay: .zero, delay: Self.playbackTick) { _ in
                keeping.value.object?.playbackTick()
            }
        }
    }

    /// A member catches up with `buffer` from its packet `from`, at the catch-up speed until live; counted.
    func startCatchUp(_ member: RelayMember, with buffer: BurstBuffer, from: Int, now: NIODeadline) {
        let origin = buffer.entry(from).timestamp
        startPlayback(
            Playback(
                kind: .catchUp, buffer: buffer, next: from,
                pacer: PlaybackPacer(origin: origin, start: now, speed: configuration.speed), timestampBase: origin),
            for: member)
        metrics.catchUp.started.increment()
    }

    /// Ends a member's playback: counted, its buffer released when nobody needs it, and the timer stopped when
    /// nobody plays.
    func endPlayback(of member: RelayMember, _ outcome: PlaybackOutcome, now: NIODeadline? = nil) {
        guard let playback = member.playback else { return }
        let now = now ?? clock()
        member.playback = nil
        playback.buffer.players -= 1
        releaseIfUnused(playback.buffer)
        if let at = players.firstIndex(where: { $0 === member }) { players.remove(at: at) }
        metrics.catchUp.finished(playback.kind, outcome)
        if playback.kind == .catchUp, outcome != .cancelled, let arrival = playback.lastArrival {
            metrics.catchUp.lag.record(.nanoseconds(max(0, (now - arrival).nanoseconds)))
        }
        if case .replay(let id) = playback.kind { replayEnded?(member, id, outcome) }
        if players.isEmpty {
            timer?.cancel()
            timer = nil
            lastTick = nil
        }
    }

    /// Stops every playback in a channel (a new burst started: live wins).
    func cancelPlaybacks(in channel: ChannelID) {
        for member in players where member.channel == channel { endPlayback(of: member, .cancelled) }
    }

    /// Sends the members what of their playback is due, within the tick's budget (going on, the next tick, with
    /// the member where it ran out), and ends the playbacks that are done.
    ///
    /// The budget, and each member's share, grow with the time since the last tick (up to
    /// ``maxTicksMadeUp`` ticks' worth): a relay thread that a loaded machine runs only now and then still sends
    /// `maxPacketsPerSecond` a second and plays at `speed`, rather than 8 packets a tick however far apart the
    /// ticks come (a loaded test run: 81 of 120 packets of a catch-up in 2 s, where 0.6 s would do).
    func playbackTick() {
        guard let handler else { return }
        let now = clock()
        let ticks = ticksSinceLast(now)
        var done: [(RelayMember, PlaybackOutcome)] = []
        var budget = packetsPerTick * ticks
        let perMember = Self.maxPlaybackPacketsPerMember * ticks
        let players = self.players
        let first = nextPlayer % max(1, players.count)
        for turn in 0..<players.count {
            let member = players[(first + turn) % players.count]
            guard budget > 0 else {
                nextPlayer = (first + turn) % players.count
                break
            }
            // A member that left or was replaced had its playback ended (the relay's `forget`).
            guard var playback = member.playback else {
                done.append((member, .cancelled))
                continue
            }
            let buffer = playback.buffer
            if playback.next < buffer.firstRetained {
                metrics.catchUp.skipped.increment(by: Int64(buffer.firstRetained - playback.next))
                playback.next = buffer.firstRetained
            }
            var sent = 0
            while playback.next < buffer.endIndex, sent < min(budget, perMember),
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

    /// How many ticks' worth of packets this tick may send: the time since the last one in ``playbackTick``s, at
    /// least 1 and at most ``maxTicksMadeUp``.
    private func ticksSinceLast(_ now: NIODeadline) -> Int {
        defer { lastTick = now }
        guard let lastTick else { return 1 }
        let elapsed = (now - lastTick).nanoseconds / Self.playbackTick.nanoseconds
        return Int(min(max(elapsed, 1), Int64(Self.maxTicksMadeUp)))
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
