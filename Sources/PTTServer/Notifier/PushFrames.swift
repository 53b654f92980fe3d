import Foundation
import PTTCore
import PTTProtocol

/// The `push` frames the notifier sends; the same payloads go to APNs.
enum PushFrames {
    static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }

    /// A pushtotalk wake for a talk burst: priority 10, expiration 0 (now or never). During an emergency it says so
    /// (`kind: emergency`), with the emergency, so that the app can ring differently.
    static func wake(
        channel: ChannelID, speaker: String, burst: BurstID, sentAt: Date, emergency: EmergencyState? = nil,
        broadcast: BroadcastInfo? = nil
    ) -> PushFrame {
        // An emergency outranks a broadcast: its wake says emergency.
        let broadcast = emergency == nil ? broadcast : nil
        let kind: CallKind? = emergency != nil ? .emergency : broadcast != nil ? .broadcast : nil
        return PushFrame(
            id: UUID().uuidString.lowercased(), pushType: PushFrame.pushToTalk, priority: 10, expiration: 0,
            payload: PushPayload(
                channel: channel.description, activeSpeaker: speaker, burst: burst.rawValue,
                sentAt: milliseconds(sentAt), kind: kind, emergency: emergency, broadcast: broadcast))
    }

    /// A pushtotalk wake for a private call that rings (`kind: private`, with the call), through the callee device's
    /// iOS channel `channel`: the app shows the caller as the channel's active speaker.
    static func callRing(channel: ChannelID, call: CallInfo, sentAt: Date) -> PushFrame {
        PushFrame(
            id: UUID().uuidString.lowercased(), pushType: PushFrame.pushToTalk, priority: 10, expiration: 0,
            payload: PushPayload(
                channel: channel.description, activeSpeaker: call.caller.name, sentAt: milliseconds(sentAt),
                kind: .private, call: call))
    }

    /// A pushtotalk message telling the app to leave a channel: priority 10, expiration 0.
    static func leave(channel: ChannelID, reason: LeaveReason, sentAt: Date) -> PushFrame {
        PushFrame(
            id: UUID().uuidString.lowercased(), pushType: PushFrame.pushToTalk, priority: 10, expiration: 0,
            payload: PushPayload(
                channel: channel.description, sentAt: milliseconds(sentAt), leaveChannel: true, reason: reason))
    }

    /// A stored announcement: priority 5, expiring at its TTL, with its collapse id.
    static func announcement(_ a: StoredAnnouncement, channelName: String) -> PushFrame {
        PushFrame(
            id: a.id, pushType: PushFrame.alert, priority: 5,
            expiration: Int64(a.expiresAt.timeIntervalSince1970.rounded(.up)),
            collapseId: a.collapseID,
            payload: PushPayload(
                aps: APS(alert: APS.Alert(title: channelName, body: a.text)), channel: a.channel.description,
                sentAt: milliseconds(a.createdAt), announcement: a.text))
    }
}
