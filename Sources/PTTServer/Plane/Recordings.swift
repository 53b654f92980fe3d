import Foundation
import NIOCore
import PTTCore
import PTTProtocol
import PTTRelay
import PTTStore

/// The plane's side of recording: which channels are recorded (the stored switch, or the config), a recorded
/// burst announced to the recorder and the relay when a member takes the floor, replays asked for over the control
/// connection, and what the admin API reads and exports. Files are the ``BurstRecorder``'s, on its own thread.
final class Recordings {
    private unowned let plane: ControlPlane
    /// Set when the server starts; without one nothing is recorded.
    var recorder: BurstRecorder?
    private var nextKey: UInt64 = 1

    init(plane: ControlPlane) {
        self.plane = plane
    }

    /// Whether a channel's bursts are recorded now: its switch, the config's list, or an emergency that holds.
    func isRecorded(_ channel: PTTCore.Channel) -> Bool {
        channel.recording || plane.emergencies.emergency(of: channel) != nil || isConfigured(channel)
    }

    private func isConfigured(_ channel: PTTCore.Channel) -> Bool {
        plane.configuration.recording.channels.contains(channel.name)
    }

    /// A member took the floor: on a recorded channel, its burst is announced to the recorder, then the relay.
    func burstStarted(in channelID: ChannelID, speaker: MemberID) -> [PlaneEffect] {
        guard let recorder, let channel = plane.directory.channels[channelID], isRecorded(channel),
            let membership = plane.directory.memberships[speaker]
        else { return [] }
        let key = nextKey
        nextKey += 1
        recorder.begin(
            key,
            BurstMeta(
                channel: channelID, channelName: channel.name, speaker: membership.user,
                speakerName: membership.displayName, startedAt: plane.context.wallClock.now()))
        return [.relay([.record(channelID, key: key)])]
    }

    // MARK: Replay

    /// How long a `replay` of the last burst waits for a burst that is still ending (the release grace, then the
    /// recorder's end of the file) before it plays the last finished one.
    var lastBurstWait: Duration { plane.configuration.floor.releaseGrace + .seconds(1) }

    /// `replay`: a recorded burst of the channel (the last by default) to the asking member alone, on its stream;
    /// refused while a burst is live (live audio wins).
    func replay(
        _ request: Replay, device: SessionTable.DeviceKey, from session: ControlSession, waited: Duration = .zero
    ) -> [PlaneEffect] {
        let channel: PTTCore.Channel
        let membership: Membership
        do { (channel, membership) = try device.membership(in: request.channel, of: plane.directory) } catch {
            return [.error(session, re: request.id, error.code, error.message)]
        }
        guard plane.floors[channel.id]?.holder == nil else {
            return [
                .error(session, re: request.id, .channelBusy, "a burst is live on '\(channel.name)': live audio wins")
            ]
        }
        let channelID = channel.id
        // Read on the storage's thread: the plane goes on meanwhile.
        plane.storage.run { store -> (found: RecordedBurst?, lastStillEnding: Bool) in
            if let id = request.burst {
                return (try store.burst(id).flatMap { $0.channel == channelID ? $0 : nil }, false)
            }
            let recent = try store.bursts(in: channelID, limit: 8)
            return (recent.first { $0.state != .recording }, recent.first?.state == .recording)
        }.whenComplete { [self] result in
            switch result {
            case .failure(let error):
                plane.run([.error(session, re: request.id, .internal, "cannot read the recordings: \(error)")])
            case .success(let read):
                // The last burst is still being finished (its release's grace, then its file's end): it is the one
                // asked for, so wait for it, a bounded time, rather than play the one before.
                if read.lastStillEnding, waited < lastBurstWait {
                    plane.eventLoop.scheduleTask(in: .milliseconds(50)) { [self] in
                        plane.run(replay(request, device: device, from: session, waited: waited + .milliseconds(50)))
                    }
                    return
                }
                play(read.found, request, channel: channel, membership: membership, to: session)
            }
        }
        return []
    }

    /// Plays `found` (the burst a `replay` asked for) to the asking member, or says there is none.
    private func play(
        _ found: RecordedBurst?, _ request: Replay, channel: PTTCore.Channel, membership: Membership,
        to session: ControlSession
    ) {
        guard let recorder, let burst = found, burst.state != .recording else {
            let what = request.burst.map { "no recorded burst #\($0)" } ?? "no recorded burst"
            return plane.run([.error(session, re: request.id, .noSuchRecording, "\(what) in '\(channel.name)'")])
        }
        recorder.load(burst).whenComplete { [self] result in
            guard case .success(let packets) = result else {
                return plane.run([
                    .error(session, re: request.id, .noSuchRecording, "recorded burst #\(burst.id) cannot be read")
                ])
            }
            guard plane.directory.memberships[membership.id] != nil else { return }
            let speakerSSRC =
                plane.directory.members(of: channel.id).first { $0.user == burst.speaker }?.ssrc ?? 0
            let replaying = Replaying(
                re: request.id, channel: ChannelInfo(channel), burst: burst.id, speaker: burst.speakerName,
                startedAt: Int64(burst.startedAt.timeIntervalSince1970 * 1000), durationMs: burst.durationMs,
                packets: packets.count)
            plane.run([
                .relay([.replay(membership.id, burst: burst.id, speakerSSRC: speakerSSRC, packets: packets)]),
                .send(.replaying(replaying), to: session),
            ])
        }
    }

    /// The relay says a replay ended: the member's app is told.
    func replayEnded(_ member: MemberID, burst: Int64, outcome: PlaybackOutcome) -> [PlaneEffect] {
        guard let membership = plane.directory.memberships[member],
            let channel = plane.directory.channels[membership.channel],
            let session = plane.sessions.appSession(of: membership)
        else { return [] }
        let ended = ReplayEnded(
            channel: ChannelInfo(channel), burst: burst, outcome: ReplayOutcome(rawValue: outcome.rawValue))
        return [.send(.replayEnded(ended), to: session)]
    }

    // MARK: Admin

    /// `PUT /api/channels/NAME/recording`.
    func setRecording(_ reference: String, _ on: Bool) -> EventLoopFuture<ChannelRecording> {
        plane.writes.change { directory throws(AdminError) in
            var changed = try AdminOperations.channel(reference, in: directory)
            changed.recording = on
            return (
                [.putChannel(changed)],
                {
                    self.plane.logger.info(
                        "channel recording switched", metadata: ["channel": "\(changed.name)", "on": "\(on)"])
                    return ChannelRecording(
                        channel: changed.name, recording: on, configured: self.isConfigured(changed))
                }
            )
        }
    }

    /// `GET /api/channels/NAME/bursts` (with `deleted=true`, a deleted channel's): newest first.
    func history(_ channel: RecordedChannel, since: Date?, limit: Int) -> EventLoopFuture<[RecordedBurstInfo]> {
        channel.bursts(in: plane.storage, live: plane.directory, since: since, limit: limit)
            .map { $0.map(Self.info) }.flatMapErrorThrowing { [storage = plane.storage] error in
                throw AdminError(.internal, "cannot read the recordings: \(storage.describe(error))")
            }
    }

    /// `GET /api/channels/NAME/export`: the bursts since then, oldest first, in one Ogg Opus stream.
    func export(_ channel: RecordedChannel, since: Date?, gap: Duration) -> EventLoopFuture<AdminResponse> {
        channel.bursts(in: plane.storage, live: plane.directory, since: since, limit: 100_000).hop(
            to: plane.eventLoop
        ).flatMap { [self] found in
            let bursts = Array(found.filter { $0.state != .recording }.reversed())
            guard let recorder, !bursts.isEmpty else {
                return plane.eventLoop.makeSucceededFuture(
                    .error(AdminError(.notFound, "no recorded bursts in \(channel.name) for that time")))
            }
            return Self.audio(recorder.export(bursts, gap: gap), on: plane.eventLoop)
        }.recover { [storage = plane.storage] error in
            .error(AdminError(.internal, "cannot read the recordings: \(storage.describe(error))"))
        }
    }

    /// `GET /api/bursts/ID/audio`.
    func audio(_ id: Int64) -> EventLoopFuture<AdminResponse> {
        plane.storage.run { try $0.burst(id) }.flatMap { [self] burst in
            guard let recorder, let burst else {
                return plane.eventLoop.makeSucceededFuture(.error(AdminError(.notFound, "no recorded burst #\(id)")))
            }
            return Self.audio(recorder.audio(of: burst), on: plane.eventLoop)
        }.recover { _ in .error(AdminError(.notFound, "no recorded burst #\(id)")) }
    }

    private static func audio(_ bytes: EventLoopFuture<[UInt8]>, on loop: EventLoop) -> EventLoopFuture<AdminResponse> {
        bytes.hop(to: loop).map { AdminResponse(status: .ok, contentType: "audio/ogg", body: $0) }.recover { error in
            .error(error as? AdminError ?? AdminError(.internal, "\(error)"))
        }
    }

    static func info(_ burst: RecordedBurst) -> RecordedBurstInfo {
        RecordedBurstInfo(
            id: burst.id, channel: burst.channelName, speaker: burst.speaker, speakerName: burst.speakerName,
            startedAt: burst.startedAt.iso8601, durationMs: burst.durationMs, packets: burst.packets,
            bytes: burst.bytes, state: RecordedBurstState(rawValue: burst.state.rawValue))
    }
}
