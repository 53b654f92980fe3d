import NIOCore
import PTTCore

extension MediaRelay {
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
            keeping.close(current)
            buffer = nil
        }
        if buffer == nil {
            let fresh = BurstBuffer(channel: channel, speakerSSRC: speaker.config.ssrc, generation: state.generation)
            channels[channel]!.burst = fresh
            keeping.register(fresh)
            if let recording = state.recording, recording.generation == state.generation {
                keeping.recordings.start(fresh, key: recording.key)
            }
            buffer = fresh
        }
        let dropped = keeping.append(payload, to: buffer!, timestamp: timestamp, marker: marker, arrival: now)
        if dropped > 0 { metrics.catchUp.evicted.increment(by: Int64(dropped)) }
    }

    /// The channel's kept burst, if its floor moved on (a new holder, or idle): it is closed.
    func settleBurst(_ channel: ChannelID) {
        if let ended = channels[channel]?.takeEndedBurst() { keeping.close(ended) }
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
        keeping.startCatchUp(member, with: buffer, from: from, now: now)
        logger.debug(
            "member catches up with the current burst",
            metadata: [
                "member": "\(member.config.id)", "from": "\(from)", "kept": "\(buffer.endIndex - buffer.firstRetained)",
            ])
    }
}
