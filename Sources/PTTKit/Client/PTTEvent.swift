import PTTProtocol

/// Something that happened, as ``PTTClient/events`` delivers it: typed values, never raw frames.
public enum PTTEvent: Sendable, Equatable {
    /// The connection moved to `state` (feed it to `PTChannelManager.setServiceStatus`).
    case connectionState(ConnectionState)
    /// The membership of `channel` is attached again after a reconnect, with these (possibly new) parameters.
    case reattached(channel: ChannelInfo)
    /// `speaker` took the floor of `channel`: show them as the active remote participant.
    case floorTaken(channel: ChannelInfo, speaker: MemberInfo)
    /// Nobody talks in `channel` any more: clear the active remote participant.
    case floorIdle(channel: ChannelInfo)
    /// Your turn came (after ``FloorOutcome/queued(position:)``): talk for at most `talkTime`.
    case floorGranted(channel: ChannelInfo, talkTime: Duration)
    /// Your place in the queue changed.
    case floorQueued(channel: ChannelInfo, position: Int)
    /// You left the queue (you released, or the server dropped the request).
    case floorQueueCancelled(channel: ChannelInfo)
    /// The floor was taken from you: stop transmitting.
    case floorRevoked(channel: ChannelInfo, cause: FloorRevocationCause)
    /// A member with a higher priority asked: you lose the floor after `grace`.
    case floorRevokePending(channel: ChannelInfo, by: MemberInfo, grace: Duration)
    /// Another member joined `channel`.
    case memberJoined(channel: ChannelInfo, member: MemberInfo)
    /// A member left `channel`.
    case memberLeft(channel: ChannelInfo, member: MemberInfo)
    /// Your membership of `channel` ended: `reason` is `left`, `kicked`, `channel-deleted` or `user-removed`.
    /// Leave the PushToTalk channel too.
    case membershipEnded(channel: ChannelInfo, reason: String)
    /// A replay asked for with ``ChannelHandle/replay(burst:)`` ended: every packet sent (`ended`), or `cancelled`.
    case replayEnded(channel: ChannelInfo, burst: Int64, outcome: ReplayOutcome)
    /// `channel` is in emergency (or imminent peril): show it until ``emergencyCleared(channel:by:name:)``. The
    /// declarer's own declaration comes back as this event too.
    case emergencyDeclared(channel: ChannelInfo, emergency: EmergencyState)
    /// The emergency on `channel` is over: cleared by its declarer (`name`) or an operator.
    case emergencyCleared(channel: ChannelInfo, by: EmergencyClearer, name: String)
    /// An operator's announcement for `channel` (delivered to the app while it has no Local Push extension).
    case announcement(channel: String, text: String)
    /// `call` rings this user (a private call, ``PTTClient/call(_:from:)``): show who calls, then
    /// ``PTTClient/accept(_:)`` or ``PTTClient/decline(_:)``. `waiting`: this user is in a burst now.
    case callIncoming(CallInfo, waiting: Bool)
    /// `call` is answered: ``PTTClient/openChannels`` has its channel (`channel.id`), with its own floor and audio.
    case callConnected(CallInfo, channel: ChannelInfo)
    /// `call` is over, or never connected; `by` names who hung up.
    case callEnded(CallInfo, reason: CallEndReason, by: String?)
    /// A broadcast reaches `channel` (one event per membership of its channels): its sender talks to it now, and
    /// nobody else may take its floor until ``broadcastEnded(_:channel:reason:)``. Show the sender as the active
    /// remote participant.
    case broadcastStarted(BroadcastInfo, channel: ChannelInfo)
    /// The broadcast is over in `channel`.
    case broadcastEnded(BroadcastInfo, channel: ChannelInfo, reason: BroadcastEndReason)
    /// This device scans (``PTTClient/scan(_:resume:)``) and now hears `hearing`'s burst (nil: none of its scanned
    /// channels has one): show that channel's speaker as the active remote participant.
    case scanSwitched(hearing: ChannelInfo?)

    /// The event a server frame carries, or nil for frames that are not events (answers, heartbeats, ...).
    static func from(_ message: ControlMessage) -> PTTEvent? {
        switch message {
        case .floorTaken(let taken): .floorTaken(channel: taken.channel, speaker: taken.member)
        case .floorIdle(let idle): .floorIdle(channel: idle.channel)
        case .floorGranted(let granted):
            .floorGranted(channel: granted.channel, talkTime: .milliseconds(granted.talkTimeMs))
        case .floorQueued(let queued): .floorQueued(channel: queued.channel, position: queued.position)
        case .floorQueueCancelled(let cancelled): .floorQueueCancelled(channel: cancelled.channel)
        case .floorRevoked(let revoked):
            .floorRevoked(channel: revoked.channel, cause: revoked.cause)
        case .floorRevokePending(let pending):
            .floorRevokePending(channel: pending.channel, by: pending.by, grace: .milliseconds(pending.graceMs))
        case .memberJoined(let event): .memberJoined(channel: event.channel, member: event.member)
        case .memberLeft(let event): .memberLeft(channel: event.channel, member: event.member)
        case .left(let left): .membershipEnded(channel: left.channel, reason: left.reason.rawValue)
        case .replayEnded(let ended): .replayEnded(channel: ended.channel, burst: ended.burst, outcome: ended.outcome)
        case .emergencyDeclared(let declared):
            .emergencyDeclared(channel: declared.channel, emergency: declared.emergency)
        case .emergencyCleared(let cleared):
            .emergencyCleared(channel: cleared.channel, by: cleared.by, name: cleared.name)
        case .callIncoming(let ringing): .callIncoming(ringing.call, waiting: ringing.waiting ?? false)
        case .callConnected(let connected): .callConnected(connected.call, channel: connected.channel)
        case .callEnded(let ended): .callEnded(ended.call, reason: ended.reason, by: ended.by)
        case .broadcastStarted(let started): .broadcastStarted(started.broadcast, channel: started.channel)
        case .broadcastEnded(let ended): .broadcastEnded(ended.broadcast, channel: ended.channel, reason: ended.reason)
        case .scanSwitched(let switched): .scanSwitched(hearing: switched.hearing)
        case .push(let push):
            push.payload.announcement.map { .announcement(channel: push.payload.channel, text: $0) }
        case .hello, .welcome, .heartbeat, .heartbeatAck, .error, .join, .joined, .leave, .pushToken,
            .pushTokenRegistered, .floorRequest, .floorRelease, .floorDenied, .floorReleased, .pushAck, .replay,
            .replaying, .presence, .presenceReport, .emergency, .emergencyClear, .call, .callRinging, .callAccept,
            .callDecline, .callHangup, .broadcast, .scan, .scanSet:
            nil
        }
    }
}
