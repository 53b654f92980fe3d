import NIOConcurrencyHelpers
import NIOCore
import PTTProtocol

/// One membership of a channel: floor control, the push token, presence, replays, and the channel's audio both
/// ways. ``PTTClient/join(_:displayName:receiveOnly:pushToken:)`` makes one; it stays valid across reconnects (the
/// kit attaches the membership again and keeps its media on the same SSRC) until the membership ends.
public final class ChannelHandle: Sendable {
    /// The channel's UUID (lowercase): the `channelUUID` of the PushToTalk framework.
    public let id: String
    /// The audio the channel plays, in play-out order, marked with its speaker: decode ``PlayoutItem/audio(_:)``,
    /// conceal ``PlayoutItem/lost(count:)``. One consumer; it ends when the membership does.
    public let audio: AsyncStream<PlayoutItem>
    /// How many packets ``send(opus:samples:)`` lets wait for their time (1 s of 20 ms packets).
    public static let maximumQueuedPackets = 50

    let client: PTTClient
    let playout: Playout
    private let state: NIOLockedValueBox<State>

    struct State {
        var joined: Joined
        var media: MediaSession
        var pacer = TalkPacer(timestamp: .random(in: 0...UInt32.max))
        var queued = 0
        var ended = false
    }

    init(client: PTTClient, joined: Joined, media: MediaSession, jitterDelay: Duration) {
        self.client = client
        id = joined.channel.id
        playout = Playout(delay: jitterDelay)
        audio = playout.items
        state = NIOLockedValueBox(State(joined: joined, media: media))
        playout.setSpeaker(joined.floor.holder)
        listen(to: media)
    }

    /// The channel's name, UUID and image.
    public var info: ChannelInfo { state.withLockedValue { $0.joined.channel } }
    /// The membership as the server last described it: this member, media parameters, the floor, the first members.
    public var membership: Joined { state.withLockedValue { $0.joined } }
    /// The SSRC this member sends with (the same after every reconnect).
    public var ssrc: UInt32 { state.withLockedValue { $0.joined.media.ssrc } }
    /// Packets handed to ``send(opus:samples:)`` that wait for their time.
    public var queuedPackets: Int { state.withLockedValue { $0.queued } }
    /// Times the media socket was opened again because the local address went away (roaming).
    public var mediaSocketReopens: Int { state.withLockedValue { $0.media.socketReopens } }
    /// Packets SRTP replay protection dropped (copies the network made).
    public var replayedPackets: Int { state.withLockedValue { $0.media.replayedPackets } }
    /// The jitter buffer's counts: packets reordered, duplicated, late and lost so far.
    public var listeningStatistics: JitterBuffer<PlayoutPacket>.Statistics { playout.statistics }

    // MARK: - Floor

    /// Asks for the floor. ``FloorOutcome/queued(position:)`` is followed by ``PTTEvent/floorGranted(channel:talkTime:)``
    /// when the turn comes.
    public func requestFloor() async throws -> FloorOutcome {
        let answer = try await request(.floorRequest(FloorCommand(channel: id)))
        if case .floorQueued(let queued) = answer { return .queued(position: queued.position) }
        if case .floorDenied(let denied) = answer { return .denied(cause: denied.cause) }
        guard case .floorGranted(let granted) = answer else { throw PTTClientError.unexpectedReply(answer.type) }
        state.withLockedValue { $0.pacer.endSpurt() }
        return .granted(talkTime: .milliseconds(granted.talkTimeMs))
    }

    /// Releases the floor (or leaves the queue) once the audio already handed to ``send(opus:samples:)`` has gone
    /// out. No wait after the last packet: a release that overtakes it (TCP against UDP) does not cut it, the server
    /// still relays the former holder's packets for a moment (Docs/PROTOCOL.md 7.5).
    public func releaseFloor() async throws {
        let drainBy = ContinuousClock.now + .seconds(2)
        while state.withLockedValue({ $0.queued > 0 }), ContinuousClock.now < drainBy {
            try await Task.sleep(for: .milliseconds(5))
        }
        state.withLockedValue { $0.pacer.endSpurt() }
        _ = try await request(.floorRelease(FloorCommand(channel: id)), againAfterReconnect: true)
    }

    // MARK: - Emergency

    /// Declares an emergency (or an imminent peril) on this channel: every member is told
    /// (``PTTEvent/emergencyDeclared(channel:emergency:)``), and this member takes the floor at once, from anyone
    /// (``PTTEvent/floorGranted(channel:talkTime:)`` follows). Needs the user's emergency right: without it the server
    /// answers `not-permitted`.
    public func declareEmergency(_ level: EmergencyGrade = .emergency) async throws -> EmergencyState {
        let answer = try await request(.emergency(EmergencyRequest(channel: id, level: level)))
        guard case .emergencyDeclared(let declared) = answer else { throw PTTClientError.unexpectedReply(answer.type) }
        return declared.emergency
    }

    /// Ends the emergency this user declared on the channel; every member is told.
    public func clearEmergency() async throws {
        let answer = try await request(.emergencyClear(EmergencyClear(channel: id)), againAfterReconnect: true)
        guard case .emergencyCleared = answer else { throw PTTClientError.unexpectedReply(answer.type) }
    }

    // MARK: - Talking

    /// Sends one Opus packet, as the app's encoder made it, `samples` long at 48 kHz (960 for 20 ms). The kit
    /// stamps it (sequence number, timestamp, the marker on the first of a spurt), protects it, and sends it when its
    /// time comes: packets handed over faster than real time wait (at most ``maximumQueuedPackets``).
    public func send(opus: [UInt8], samples: Int = 960) throws {
        let (media, slot) = try state.withLockedValue { state -> (MediaSession, TalkPacer.Slot) in
            guard !state.ended else { throw PTTClientError.notAMember(channel: state.joined.channel.name) }
            guard state.queued < Self.maximumQueuedPackets else { throw PTTClientError.transmitQueueFull }
            state.queued += 1
            return (state.media, state.pacer.place(samples: samples, now: ReceivedAudio.clock()))
        }
        let deadline = NIODeadline.uptimeNanoseconds(slot.sendAt)
        media.loop.scheduleTask(deadline: deadline) { [self] in
            let current = state.withLockedValue { state -> MediaSession in
                state.queued -= 1
                return state.media
            }
            try? current.send(opus: opus, timestamp: slot.timestamp, marker: slot.marker)
        }
    }

    /// Ends the talk spurt without releasing the floor: the next packet sent is marked as the start of a new one.
    public func endSpurt() { state.withLockedValue { $0.pacer.endSpurt() } }

    // MARK: - Membership

    /// Registers the PushToTalk framework's ephemeral push token (hex) for this membership. Do it every time the
    /// framework hands one over (after each join): tokens are not reused.
    public func registerPushToken(_ token: String) async throws {
        _ = try await request(.pushToken(PushToken(channel: id, token: token)))
    }

    /// Who in the channel is reachable now: connected, hearing audio, and how each would be woken.
    public func presence() async throws -> PresenceReport {
        let answer = try await request(.presence(PresenceRequest(channel: id)))
        guard case .presenceReport(let report) = answer else { throw PTTClientError.unexpectedReply(answer.type) }
        return report
    }

    /// Plays a recorded burst again on this channel's audio (`nil`: the last one). ``PTTEvent/replayEnded(channel:burst:outcome:)``
    /// says when it is over.
    public func replay(burst: Int64? = nil) async throws -> Replaying {
        let answer = try await request(.replay(Replay(channel: id, burst: burst)))
        guard case .replaying(let replaying) = answer else { throw PTTClientError.unexpectedReply(answer.type) }
        return replaying
    }

    /// Ends the membership.
    public func leave() async throws {
        _ = try await request(.leave(Leave(channel: id)), againAfterReconnect: true)
        await client.forget(self)
        await ended()
    }

    // MARK: - Kit-internal

    /// Sends a request for this membership. With `againAfterReconnect` (requests that may be repeated: a release, a
    /// leave), one whose connection died before the answer came is sent once more on the next connection.
    func request(_ message: ControlMessage, againAfterReconnect: Bool = false) async throws -> ControlMessage {
        if state.withLockedValue({ $0.ended }) { throw PTTClientError.notAMember(channel: info.name) }
        do {
            return try await client.request(message)
        } catch PTTClientError.noAnswer(let what) where againAfterReconnect && what == PTTClientError.closedEarly {
            return try await client.request(message)
        }
    }

    /// Reads the media session into the play-out; moves to the next session if it was replaced.
    private func listen(to media: MediaSession) {
        let loop = media.loop
        Task { [playout] in
            for await packet in media.received { playout.insert(packet, on: loop) }
        }
    }

    /// The floor holder changed (events of this channel, from the client).
    func speakerChanged(_ speaker: MemberInfo?) { playout.setSpeaker(speaker) }

    /// The membership was attached again after a reconnect: keeps the media session when its parameters did not
    /// change (and makes the relay learn its address at once), or opens one with the new parameters that goes on
    /// with the same sequence numbers.
    func reattach(_ joined: Joined, host: String, group: EventLoopGroup) async throws {
        let (old, same) = state.withLockedValue { state -> (MediaSession, Bool) in
            let same = state.joined.media == joined.media
            state.joined = joined
            return (state.media, same)
        }
        playout.setSpeaker(joined.floor.holder)
        // pttd may have restarted: its relay then numbers this listener's stream from the start again.
        playout.restart()
        if same {
            old.sendKeepAlives(at: [0, 50, 200, 500])
            return
        }
        let fresh = try await MediaSession.open(
            host: host, parameters: joined.media, firstSequence: old.nextSequence, group: group,
            addressChanged: client.pathChangeSignal)
        state.withLockedValue { $0.media = fresh }
        listen(to: fresh)
        await old.close()
    }

    /// The network path changed: the media socket is opened again on the new path, and the relay moved to it
    /// (``MediaSession/networkPathChanged()``).
    func networkPathChanged() async {
        let media = state.withLockedValue { $0.ended ? nil : $0.media }
        await media?.networkPathChanged()
    }

    /// The membership ended: closes the media and ends ``audio``.
    func ended() async {
        let media = state.withLockedValue { state -> MediaSession? in
            guard !state.ended else { return nil }
            state.ended = true
            return state.media
        }
        guard let media else { return }
        await media.close()
        playout.finish()
    }
}
